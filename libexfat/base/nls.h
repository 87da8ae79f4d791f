/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * base/nls.h - the library's message translation.  The library's texts
 * (the problem messages of problems.def) are in the catalogue of the
 * domain FSC_TEXTDOMAIN; L_() looks one up there with dgettext, so the
 * program's own textdomain() does not matter, after binding the domain
 * to the directory the library was built for (once, unless the program
 * bound it first with fsc_nls_bind).  LN_() marks a text for xgettext
 * where it is stored.  Built with --disable-nls, L_() is the English text
 * and no libintl function is called.  Not installed.
 */
#ifndef FSC_BASE_NLS_H
#define FSC_BASE_NLS_H

#include "fatscope/fatscope.h"

/* Bind FSC_TEXTDOMAIN to the library's LOCALEDIR, once (thread-safe), unless fsc_nls_bind did. */
void nls_bind_default(void);

#ifdef ENABLE_NLS
#include <libintl.h>
#define L_(s) (nls_bind_default(), dgettext(FSC_TEXTDOMAIN, s))
#else
#define L_(s) (s)
#endif
#define LN_(s) s

#endif
