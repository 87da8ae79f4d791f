/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nls.h - the commands' message translation: _() translates a message in
 * the program's text domain (textdomain(), set by main), N_() marks one
 * for xgettext where it is stored (a table) and translated where it is
 * shown, P_() chooses by a count (ngettext).  Built with --disable-nls,
 * each is the English text and no libintl function is called.
 *
 * Never through these: JSON keys and values, problem IDs, -C progress,
 * the column names of -o, anything a script parses.
 */
#ifndef FSC_NLS_H
#define FSC_NLS_H

#ifdef ENABLE_NLS
#include <libintl.h>
#define _(s) gettext(s)
#define P_(one, many, n) ngettext(one, many, n)
#else
#define _(s) (s)
#define P_(one, many, n) ((n) == 1 ? (one) : (many))
#endif
#define N_(s) s

#endif
