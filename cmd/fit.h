/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fit.h - table cells shortened to a width, with an ellipsis (fit.c). */
#ifndef FSC_FIT_H
#define FSC_FIT_H

#include <stddef.h>

/* The width tables are fitted to: COLUMNS, else the terminal's, else 80. */
size_t fit_columns(void);
/*
 * s as it will be shown by libsmartcols (its escapes counted), or, when
 * that is wider than width display columns, its longest head that leaves
 * room for an ellipsis ("…", or "..." outside a UTF-8 locale) followed by
 * the ellipsis, in buf (len bytes; s itself when it fits).  The head is
 * cut between characters, never inside one or inside an escape.
 */
const char *fit_cell(const char *s, size_t width, char *buf, size_t len);

#endif
