/* SPDX-License-Identifier: GPL-2.0 */
/* A small strict JSON parser for the tests, independent of the code under
 * test, shared by the unit tests (json_check.h) and the integration harness.
 *
 * Builds a tree so that tests can look keys up.  Strict RFC 8259: no trailing
 * commas, no leading zeros, no raw control bytes in strings, valid escapes
 * only (surrogates paired), valid UTF-8 only, no duplicate keys.  Out of
 * memory fails the current Criterion test. */
#ifndef DISKIO_JSON_READER_H
#define DISKIO_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jnode {
	enum jtype type;
	char *key;		/* member name (decoded) when inside an object */
	size_t keylen;
	char *str;		/* J_STR: decoded; J_NUM: the literal text */
	size_t len;
	struct jnode *kids;	/* J_ARR, J_OBJ */
	size_t nkids, cap;
	/* Where the node is in the parsed text (which must outlive these): */
	const char *src;	/* the value's text, without surrounding blanks */
	size_t srclen;
	const char *keysrc;	/* the member name's string, quotes included */
	size_t keysrclen;
};

/* Flags of json_parse_flags(). */
#define JSON_LATIN1_ESCAPES 1u	/* \u0000-\u00ff decode to that one byte (how diskio writes
				 * bytes outside valid UTF-8), not to UTF-8 */

/* Parse text[0..len) as exactly one JSON value (surrounding whitespace
 * allowed).  On failure, root is empty and *error says why, *where at which
 * byte.  Free the tree with j_free(). */
bool json_parse(const char *text, size_t len, struct jnode *root, const char **error,
		size_t *where);
bool json_parse_flags(const char *text, size_t len, unsigned int flags, struct jnode *root,
		      const char **error, size_t *where);
void j_free(struct jnode *node);

/* Length of a well-formed UTF-8 sequence at p (avail bytes there, at least
 * one), 0 if there is none. */
size_t j_utf8_len(const unsigned char *p, size_t avail);

/* The member key of object obj; NULL if absent or obj is not an object. */
const struct jnode *jget(const struct jnode *obj, const char *key);

/* Criterion assertions on top of the parser. */

/* One NDJSON record: a JSON value on one line ending in '\n'. */
void json_parse_line(const char *text, size_t len, struct jnode *root);
/* The member key of obj, which must exist and be of type. */
const struct jnode *jmust(const struct jnode *obj, const char *key, enum jtype type);
/* A JSON integer exactly, as uint64_t. */
uint64_t ju64(const struct jnode *node);
uint64_t jkey_u64(const struct jnode *obj, const char *key);
double jkey_double(const struct jnode *obj, const char *key);
bool jstr_is(const struct jnode *node, const char *s, size_t len);
/* The parser must reject what is not JSON, or its verdicts mean nothing. */
void json_self_test(void);

#endif /* DISKIO_JSON_READER_H */
