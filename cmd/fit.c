// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fit.c - table cells shortened to the terminal's width: a name of 255
 * characters would make every row of a table wrap into several lines.
 * The width of a cell is counted as libsmartcols shows it with its
 * encoding on (dump's tree tables): a control byte, a byte that is no
 * character of the locale and a backslash before 'x' as "\xNN" (four
 * columns), a printable character as wcwidth(3) says; the cell itself
 * is handed to libsmartcols unescaped, so that the bytes are escaped
 * once, by it.
 *
 * Consumes: a cell's text and a width.  Produces: the text, or its head
 * and an ellipsis.
 */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

#include "fit.h"

size_t fit_columns(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long n;

	if (env && *env) {
		n = strtol(env, &end, 10);
		if (!*end && n > 0 && n < 100000)
			return (size_t)n;
	}
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* The bytes of the character at s (at most n) and the columns it is shown in. */
static size_t one_char(const char *s, size_t n, mbstate_t *st, size_t *cols)
{
	unsigned char c = (unsigned char)*s;
	wchar_t wc;
	size_t len;
	int w;

	if ((c == '\\' && n > 1 && s[1] == 'x') || iscntrl(c)) {
		*cols = 4;
		return 1;
	}
	len = mbrtowc(&wc, s, n, st);
	if (len == (size_t)-1 || len == (size_t)-2 || len == 0) {
		memset(st, 0, sizeof(*st));
		*cols = isprint(c) ? 1 : 4;
		return 1;
	}
	if (!iswprint(wc)) {
		*cols = 4 * len;
		return len;
	}
	w = wcwidth(wc);
	*cols = w > 0 ? (size_t)w : 0;
	return len;
}

const char *fit_cell(const char *s, size_t width, char *buf, size_t len)
{
	bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	const char *dots = utf8 ? "\xe2\x80\xa6" : "...";
	size_t dots_cols = utf8 ? 1 : 3, n = strlen(s), at = 0, cols = 0, cut = 0, c;
	mbstate_t st;

	memset(&st, 0, sizeof(st));
	while (at < n) {	/* where the head ends: the last character that leaves room for the dots */
		size_t k = one_char(s + at, n - at, &st, &c);

		if (cols + c + dots_cols <= width && at + k + strlen(dots) < len)
			cut = at + k;
		cols += c;
		at += k;
	}
	if (cols <= width || !len)
		return s;
	memcpy(buf, s, cut);
	strcpy(buf + cut, dots);
	return buf;
}
