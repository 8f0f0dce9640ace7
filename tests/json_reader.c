// SPDX-License-Identifier: GPL-2.0
/* The tests' strict JSON parser: see json_reader.h. */
#include "json_reader.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jparser {
	const unsigned char *p, *end;
	int depth;
	unsigned int flags;
	const char *error;
};

static bool j_value(struct jparser *jp, struct jnode *node);

void j_free(struct jnode *node)
{
	for (size_t i = 0; i < node->nkids; i++)
		j_free(&node->kids[i]);
	free(node->kids);
	free(node->key);
	free(node->str);
	memset(node, 0, sizeof(*node));
}

static bool j_fail(struct jparser *jp, const char *why)
{
	if (!jp->error)
		jp->error = why;
	return false;
}

static void j_space(struct jparser *jp)
{
	while (jp->p < jp->end &&
	       (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

static bool j_word(struct jparser *jp, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(jp->end - jp->p) < n || memcmp(jp->p, word, n))
		return j_fail(jp, "bad literal");
	jp->p += n;
	return true;
}

struct jbuf {
	char *data;
	size_t len, cap;
};

static void jbuf_put(struct jbuf *b, unsigned char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? 2 * b->cap : 32;
		b->data = realloc(b->data, b->cap);
		cr_assert_not_null(b->data);
	}
	b->data[b->len++] = (char)c;
	b->data[b->len] = '\0';
}

static void jbuf_put_cp(struct jbuf *b, uint32_t cp)
{
	if (cp < 0x80) {
		jbuf_put(b, cp);
	} else if (cp < 0x800) {
		jbuf_put(b, 0xc0 | (cp >> 6));
		jbuf_put(b, 0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		jbuf_put(b, 0xe0 | (cp >> 12));
		jbuf_put(b, 0x80 | ((cp >> 6) & 0x3f));
		jbuf_put(b, 0x80 | (cp & 0x3f));
	} else {
		jbuf_put(b, 0xf0 | (cp >> 18));
		jbuf_put(b, 0x80 | ((cp >> 12) & 0x3f));
		jbuf_put(b, 0x80 | ((cp >> 6) & 0x3f));
		jbuf_put(b, 0x80 | (cp & 0x3f));
	}
}

static int j_hex4(struct jparser *jp)
{
	int v = 0;

	if (jp->end - jp->p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned char c = *jp->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

size_t j_utf8_len(const unsigned char *p, size_t avail)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0;
	else if (p[0] == 0xed)
		hi = 0x9f;
	else if (p[0] == 0xf0)
		lo = 0x90;
	else if (p[0] == 0xf4)
		hi = 0x8f;
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static bool j_string(struct jparser *jp, char **out, size_t *outlen)
{
	struct jbuf b = { 0 };

	if (jp->p >= jp->end || *jp->p != '"')
		return j_fail(jp, "expected string");
	jp->p++;
	jbuf_put(&b, 0);	/* allocate, so that "" is a string too */
	b.len = 0;
	for (;;) {
		unsigned char c;

		if (jp->p >= jp->end) {
			free(b.data);
			return j_fail(jp, "unterminated string");
		}
		c = *jp->p;
		if (c == '"') {
			jp->p++;
			break;
		}
		if (c < 0x20) {
			free(b.data);
			return j_fail(jp, "raw control byte in string");
		}
		if (c >= 0x80) {
			size_t n = j_utf8_len(jp->p, jp->end - jp->p);

			if (!n) {
				free(b.data);
				return j_fail(jp, "invalid UTF-8 in string");
			}
			for (size_t i = 0; i < n; i++)
				jbuf_put(&b, *jp->p++);
			continue;
		}
		if (c != '\\') {
			jbuf_put(&b, c);
			jp->p++;
			continue;
		}
		jp->p++;
		if (jp->p >= jp->end) {
			free(b.data);
			return j_fail(jp, "unterminated escape");
		}
		c = *jp->p++;
		switch (c) {
		case '"': jbuf_put(&b, '"'); break;
		case '\\': jbuf_put(&b, '\\'); break;
		case '/': jbuf_put(&b, '/'); break;
		case 'b': jbuf_put(&b, '\b'); break;
		case 'f': jbuf_put(&b, '\f'); break;
		case 'n': jbuf_put(&b, '\n'); break;
		case 'r': jbuf_put(&b, '\r'); break;
		case 't': jbuf_put(&b, '\t'); break;
		case 'u': {
			int cp = j_hex4(jp);

			if (cp < 0) {
				free(b.data);
				return j_fail(jp, "bad \\u escape");
			}
			if (cp >= 0xdc00 && cp <= 0xdfff) {
				free(b.data);
				return j_fail(jp, "lone low surrogate");
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				int lo;

				if (jp->end - jp->p < 6 || jp->p[0] != '\\' || jp->p[1] != 'u') {
					free(b.data);
					return j_fail(jp, "lone high surrogate");
				}
				jp->p += 2;
				lo = j_hex4(jp);
				if (lo < 0xdc00 || lo > 0xdfff) {
					free(b.data);
					return j_fail(jp, "bad surrogate pair");
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (cp < 0x100 && (jp->flags & JSON_LATIN1_ESCAPES))
				jbuf_put(&b, cp);
			else
				jbuf_put_cp(&b, cp);
			break;
		}
		default:
			free(b.data);
			return j_fail(jp, "bad escape");
		}
	}
	*out = b.data;
	*outlen = b.len;
	return true;
}

static bool j_digits(struct jparser *jp)
{
	const unsigned char *start = jp->p;

	while (jp->p < jp->end && *jp->p >= '0' && *jp->p <= '9')
		jp->p++;
	return jp->p > start;
}

static bool j_number(struct jparser *jp, struct jnode *node)
{
	const unsigned char *start = jp->p;

	if (jp->p < jp->end && *jp->p == '-')
		jp->p++;
	if (jp->p < jp->end && *jp->p == '0') {
		jp->p++;
	} else if (jp->p < jp->end && *jp->p >= '1' && *jp->p <= '9') {
		j_digits(jp);
	} else {
		return j_fail(jp, "bad number");
	}
	if (jp->p < jp->end && *jp->p == '.') {
		jp->p++;
		if (!j_digits(jp))
			return j_fail(jp, "no digits after '.'");
	}
	if (jp->p < jp->end && (*jp->p == 'e' || *jp->p == 'E')) {
		jp->p++;
		if (jp->p < jp->end && (*jp->p == '+' || *jp->p == '-'))
			jp->p++;
		if (!j_digits(jp))
			return j_fail(jp, "no digits in exponent");
	}
	node->type = J_NUM;
	node->len = jp->p - start;
	node->str = strndup((const char *)start, node->len);
	cr_assert_not_null(node->str);
	return true;
}

static struct jnode *j_push(struct jnode *parent)
{
	if (parent->nkids == parent->cap) {
		parent->cap = parent->cap ? 2 * parent->cap : 8;
		parent->kids = realloc(parent->kids, parent->cap * sizeof(*parent->kids));
		cr_assert_not_null(parent->kids);
	}
	memset(&parent->kids[parent->nkids], 0, sizeof(parent->kids[0]));
	return &parent->kids[parent->nkids++];
}

static bool j_value(struct jparser *jp, struct jnode *node)
{
	memset(node, 0, sizeof(*node));
	j_space(jp);
	node->src = (const char *)jp->p;
	if (jp->p >= jp->end)
		return j_fail(jp, "unexpected end");
	if (++jp->depth > 64)
		return j_fail(jp, "too deep");
	switch (*jp->p) {
	case 'n':
		node->type = J_NULL;
		if (!j_word(jp, "null"))
			return false;
		break;
	case 't':
		node->type = J_TRUE;
		if (!j_word(jp, "true"))
			return false;
		break;
	case 'f':
		node->type = J_FALSE;
		if (!j_word(jp, "false"))
			return false;
		break;
	case '"':
		node->type = J_STR;
		if (!j_string(jp, &node->str, &node->len))
			return false;
		break;
	case '[':
		node->type = J_ARR;
		jp->p++;
		j_space(jp);
		if (jp->p < jp->end && *jp->p == ']') {
			jp->p++;
			break;
		}
		for (;;) {
			if (!j_value(jp, j_push(node)))
				return false;
			j_space(jp);
			if (jp->p < jp->end && *jp->p == ',') {
				jp->p++;
				continue;
			}
			if (jp->p < jp->end && *jp->p == ']') {
				jp->p++;
				break;
			}
			return j_fail(jp, "expected ',' or ']'");
		}
		break;
	case '{':
		node->type = J_OBJ;
		jp->p++;
		j_space(jp);
		if (jp->p < jp->end && *jp->p == '}') {
			jp->p++;
			break;
		}
		for (;;) {
			const char *keysrc;
			char *key;
			size_t keylen, keysrclen;
			struct jnode *kid;

			j_space(jp);
			keysrc = (const char *)jp->p;
			if (!j_string(jp, &key, &keylen))
				return false;
			keysrclen = (const char *)jp->p - keysrc;
			for (size_t i = 0; i < node->nkids; i++) {
				if (node->kids[i].keylen == keylen &&
				    !memcmp(node->kids[i].key, key, keylen)) {
					free(key);
					return j_fail(jp, "duplicate key");
				}
			}
			j_space(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				free(key);
				return j_fail(jp, "expected ':'");
			}
			jp->p++;
			kid = j_push(node);
			if (!j_value(jp, kid)) {
				free(key);
				return false;
			}
			kid->key = key;
			kid->keylen = keylen;
			kid->keysrc = keysrc;
			kid->keysrclen = keysrclen;
			j_space(jp);
			if (jp->p < jp->end && *jp->p == ',') {
				jp->p++;
				continue;
			}
			if (jp->p < jp->end && *jp->p == '}') {
				jp->p++;
				break;
			}
			return j_fail(jp, "expected ',' or '}'");
		}
		break;
	default:
		if (*jp->p == '-' || (*jp->p >= '0' && *jp->p <= '9')) {
			if (!j_number(jp, node))
				return false;
			break;
		}
		return j_fail(jp, "unexpected character");
	}
	node->srclen = (const char *)jp->p - node->src;
	jp->depth--;
	return true;
}

bool json_parse_flags(const char *text, size_t len, unsigned int flags, struct jnode *root,
		      const char **error, size_t *where)
{
	struct jparser jp = { (const unsigned char *)text, (const unsigned char *)text + len, 0,
			      flags, NULL };
	bool ok = j_value(&jp, root);

	if (ok) {
		j_space(&jp);
		if (jp.p != jp.end)
			ok = j_fail(&jp, "trailing bytes after the value");
	}
	if (!ok) {
		j_free(root);
		*error = jp.error ? jp.error : "invalid";
		*where = (const char *)jp.p - text;
	}
	return ok;
}

bool json_parse(const char *text, size_t len, struct jnode *root, const char **error,
		size_t *where)
{
	return json_parse_flags(text, len, 0, root, error, where);
}

void json_parse_line(const char *text, size_t len, struct jnode *root)
{
	const char *error = NULL;
	size_t where = 0;

	cr_assert_gt(len, 0, "empty output");
	cr_assert_eq(text[len - 1], '\n', "record does not end in a newline: %.*s", (int)len,
		     text);
	cr_assert_null(memchr(text, '\n', len - 1), "record spans several lines: %.*s", (int)len,
		       text);
	cr_assert(json_parse(text, len - 1, root, &error, &where),
		  "invalid JSON (%s at byte %zu): %.*s", error, where, (int)len, text);
}

const struct jnode *jget(const struct jnode *obj, const char *key)
{
	if (!obj || obj->type != J_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->nkids; i++)
		if (obj->kids[i].keylen == strlen(key) && !memcmp(obj->kids[i].key, key, strlen(key)))
			return &obj->kids[i];
	return NULL;
}

const struct jnode *jmust(const struct jnode *obj, const char *key, enum jtype type)
{
	const struct jnode *kid = jget(obj, key);

	cr_assert_not_null(kid, "key \"%s\" missing", key);
	cr_assert_eq(kid->type, type, "key \"%s\" has type %d, expected %d", key, kid->type, type);
	return kid;
}

uint64_t ju64(const struct jnode *node)
{
	char *end;
	unsigned long long v;

	cr_assert_eq(node->type, J_NUM);
	cr_assert(strspn(node->str, "0123456789") == node->len, "not a plain integer: %s",
		  node->str);
	errno = 0;
	v = strtoull(node->str, &end, 10);
	cr_assert(!errno && *end == '\0', "not a uint64: %s", node->str);
	return v;
}

uint64_t jkey_u64(const struct jnode *obj, const char *key)
{
	return ju64(jmust(obj, key, J_NUM));
}

double jkey_double(const struct jnode *obj, const char *key)
{
	return strtod(jmust(obj, key, J_NUM)->str, NULL);
}

bool jstr_is(const struct jnode *node, const char *s, size_t len)
{
	return node && node->type == J_STR && node->len == len && !memcmp(node->str, s, len);
}

void json_self_test(void)
{
	static const char *const bad[] = {
		"", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5", "-",
		"1e", "\"\\x41\"", "\"a\tb\"", "\"\\ud800\"", "\"\\udc00\"", "{\"a\":1,\"a\":2}",
		"nul", "tru", "[1 2]", "\"\xff\"", "\"\xc3\"", "1 2", "+1", "NaN", "inf",
	};
	static const char *const good[] = {
		"0", "-0.5e+3", "[]", "{}", "[null,true,false]", "\"\\u00ff\\\"\\\\\\/\"",
		"{\"a\":[{\"b\":{}}],\"c\":\"\xc3\xbf\"}", "\"\\ud83d\\ude00\"", " 1 ",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct jnode root;
		const char *error;
		size_t where;

		cr_assert_not(json_parse(bad[i], strlen(bad[i]), &root, &error, &where),
			      "self-test: accepted invalid JSON %s", bad[i]);
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct jnode root;
		const char *error = NULL;
		size_t where = 0;

		cr_assert(json_parse(good[i], strlen(good[i]), &root, &error, &where),
			  "self-test: rejected %s (%s at %zu)", good[i], error, where);
		j_free(&root);
	}
}
