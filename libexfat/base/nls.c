// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nls.c - where the library's message catalogue is: bound to LOCALEDIR
 * (the directory of the build's --localedir) before the first lookup, or
 * where the program says with fsc_nls_bind.
 */
#include "config.h"

#include <pthread.h>

#include "base/base.h"
#include "base/nls.h"

static pthread_once_t bound = PTHREAD_ONCE_INIT;

static void bind_localedir(void)
{
#ifdef ENABLE_NLS
	bindtextdomain(FSC_TEXTDOMAIN, LOCALEDIR);
#endif
}

void nls_bind_default(void)
{
	pthread_once(&bound, bind_localedir);
}

FSC_EXPORT const char *fsc_nls_bind(const char *localedir)
{
	nls_bind_default();
#ifdef ENABLE_NLS
	if (localedir)
		bindtextdomain(FSC_TEXTDOMAIN, localedir);
#else
	(void)localedir;
#endif
	return FSC_TEXTDOMAIN;
}
