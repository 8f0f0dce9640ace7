// SPDX-License-Identifier: GPL-2.0
/* A file's path from its names and the mount table (filepath.h). */
#include <stdio.h>
#include <string.h>
#include "filepath.h"

bool filepath_inside(const struct file_name_event *event, size_t size, char *out, size_t outsize)
{
	size_t head = offsetof(struct file_name_event, names), bytes, at, len = 0;
	const char *starts[FILE_PATH_DEPTH];
	uint32_t depth;

	if (!outsize)
		return false;
	out[0] = '\0';
	if (size < head || !(event->flags & FILE_NAME_ROOT))
		return false;
	bytes = event->bytes;
	depth = event->depth;
	if (bytes > size - head || bytes > FILE_NAMES_BYTES || depth > FILE_PATH_DEPTH)
		return false;
	/* the names, each NUL-terminated, end to end, innermost first */
	at = 0;
	for (uint32_t i = 0; i < depth; i++) {
		const char *name = event->names + at;
		const char *nul = memchr(name, '\0', bytes - at);

		if (!nul || nul == name || memchr(name, '/', (size_t)(nul - name)))
			return false;
		starts[i] = name;
		at += (size_t)(nul - name) + 1;
	}
	if (at != bytes)
		return false;
	if (!depth) {		/* the root itself */
		if (outsize < 2)
			return false;
		memcpy(out, "/", 2);
		return true;
	}
	for (uint32_t i = depth; i-- > 0;) {
		size_t n = strlen(starts[i]);

		if (len + 1 + n + 1 > outsize) {
			out[0] = '\0';
			return false;
		}
		out[len++] = '/';
		memcpy(out + len, starts[i], n);
		len += n;
	}
	out[len] = '\0';
	return true;
}

/* A field of mountinfo with its octal escapes undone, into out.  false if
 * it does not fit. */
static bool unescape(const char *field, size_t n, char *out, size_t outsize)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++) {
		char c = field[i];

		if (c == '\\' && i + 3 < n &&
		    field[i + 1] >= '0' && field[i + 1] <= '3' &&
		    field[i + 2] >= '0' && field[i + 2] <= '7' &&
		    field[i + 3] >= '0' && field[i + 3] <= '7') {
			c = (char)((field[i + 1] - '0') * 64 + (field[i + 2] - '0') * 8 +
				   (field[i + 3] - '0'));
			i += 3;
		}
		if (len + 1 >= outsize)
			return false;
		out[len++] = c;
	}
	out[len] = '\0';
	return true;
}

/* Whether root (a directory of the filesystem, "/" or "/sub") holds path;
 * the rest of path after it in *rest. */
static bool holds(const char *root, const char *path, const char **rest)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/') {
		*rest = path;
		return true;
	}
	if (strncmp(root, path, n) || (path[n] != '/' && path[n] != '\0'))
		return false;
	*rest = path + n;
	return true;
}

bool filepath_mounted(const char *mountinfo, size_t len, uint32_t major, uint32_t minor,
		      const char *inside, char *out, size_t outsize)
{
	char want[32], root[FILEPATH_MAX], point[FILEPATH_MAX];
	const char *line = mountinfo, *end;
	size_t best = 0;
	bool found = false;

	if (!outsize)
		return false;
	out[0] = '\0';
	if (!mountinfo)		/* not read yet, or unreadable */
		return false;
	end = mountinfo + len;
	snprintf(want, sizeof(want), "%u:%u", major, minor);
	while (line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *field[5];
		size_t flen[5], nfields = 0;
		const char *p = line, *rest;

		if (!eol)
			eol = end;
		/* id, parent id, MAJ:MIN, root, mount point */
		while (p < eol && nfields < 5) {
			const char *sp = memchr(p, ' ', (size_t)(eol - p));

			if (!sp)
				sp = eol;
			field[nfields] = p;
			flen[nfields++] = (size_t)(sp - p);
			p = sp < eol ? sp + 1 : eol;
		}
		if (nfields == 5 && flen[2] == strlen(want) && !memcmp(field[2], want, flen[2]) &&
		    unescape(field[3], flen[3], root, sizeof(root)) &&
		    unescape(field[4], flen[4], point, sizeof(point)) &&
		    root[0] == '/' && point[0] == '/' && holds(root, inside, &rest) && (!found || strlen(root) > best)) {
			/* the mount point "/" and a rest "/a" make "/a", not "//a" */
			const char *base = strcmp(point, "/") || !*rest ? point : "";
			int n = snprintf(out, outsize, "%s%s", base, rest);

			if (n < 0 || (size_t)n >= outsize) {
				out[0] = '\0';
			} else {
				found = true;
				best = strlen(root);
			}
		}
		line = eol + 1;
	}
	return found;
}
