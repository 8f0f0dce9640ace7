// SPDX-License-Identifier: GPL-2.0
/* --diagnose's thresholds (diagnose_rules.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diagnose_rules.h"

void diagnose_rules_default(struct diagnose_rules *r)
{
	*r = (struct diagnose_rules){
		.busy_util = 60,
		.saturated_queue = 4,
		.throttled_util = 30,
		.wait_pct = 20,
		.failing_errors = 1,
		.drivers = 3,
		.files = 3,
	};
}

const char diagnose_rule_names[] =
	"busy_util saturated_queue throttled_util wait_pct failing_errors drivers files";

enum rule_kind { RULE_PCT, RULE_QUEUE, RULE_COUNT };

struct rule {
	const char *name;
	enum rule_kind kind;
	size_t offset;
};

static const struct rule rules[] = {
	{ "busy_util", RULE_PCT, offsetof(struct diagnose_rules, busy_util) },
	{ "saturated_queue", RULE_QUEUE, offsetof(struct diagnose_rules, saturated_queue) },
	{ "throttled_util", RULE_PCT, offsetof(struct diagnose_rules, throttled_util) },
	{ "wait_pct", RULE_PCT, offsetof(struct diagnose_rules, wait_pct) },
	{ "failing_errors", RULE_COUNT, offsetof(struct diagnose_rules, failing_errors) },
	{ "drivers", RULE_COUNT, offsetof(struct diagnose_rules, drivers) },
	{ "files", RULE_COUNT, offsetof(struct diagnose_rules, files) },
};

int diagnose_rule_set(struct diagnose_rules *r, const char *text, char *why, size_t size)
{
	const char *eq = strchr(text, '=');
	size_t len = eq ? (size_t)(eq - text) : 0;
	char *end;

	if (!eq) {
		snprintf(why, size, "'%s' is not NAME=VALUE (NAME one of %s)", text,
			 diagnose_rule_names);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		const struct rule *rule = &rules[i];
		void *field = (char *)r + rule->offset;

		if (strlen(rule->name) != len || strncmp(rule->name, text, len))
			continue;
		errno = 0;
		if (rule->kind == RULE_COUNT) {
			unsigned long long n;

			/* strtoull() takes "-1" as a huge number: no sign at all */
			n = eq[1] >= '0' && eq[1] <= '9' ? strtoull(eq + 1, &end, 10) : 0;
			if (!(eq[1] >= '0' && eq[1] <= '9') || *end || errno ||
			    (strcmp(rule->name, "failing_errors") ? n > 1000 : n < 1)) {
				snprintf(why, size, "%s: '%s' is not %s", rule->name, eq + 1,
					 strcmp(rule->name, "failing_errors") ?
					 "a count from 0 to 1000" : "a count of 1 or more");
				return -EINVAL;
			}
			if (!strcmp(rule->name, "failing_errors"))
				*(uint64_t *)field = n;
			else
				*(uint32_t *)field = (uint32_t)n;
			return 0;
		}
		{
			double v = strtod(eq + 1, &end);
			double max = rule->kind == RULE_PCT ? 100 : 1e6;

			if (end == eq + 1 || *end || errno || !isfinite(v) || v < 0 || v > max) {
				snprintf(why, size, "%s: '%s' is not a number from 0 to %g",
					 rule->name, eq + 1, max);
				return -EINVAL;
			}
			*(double *)field = v;
			return 0;
		}
	}
	snprintf(why, size, "no rule '%.*s' (one of %s)", (int)len, text, diagnose_rule_names);
	return -EINVAL;
}
