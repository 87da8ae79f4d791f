// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verdict_set.c - building a driver verdict: set its action, type, errno
 * and reason, append notes, name what the volume is.  Used by every model
 * file and by the risk text; calls nothing else in drivers/.
 *
 * Consumes: a verdict being filled and a probed volume.  Produces: text
 * in the verdict's fixed-size fields (truncated, never overflowed).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "drivers/drivers.h"

FSC_EXPORT const char *fsc_action_name(enum fsc_action a)
{
	return a == FSC_MOUNTS ? "mounts" : a == FSC_REFUSES ? "refuses" : "misreads";
}

void verdict_set(struct fsc_verdict *v, enum fsc_action a, enum fsc_type as, int err,
		 const char *fmt, ...)
{
	va_list ap;

	v->action = a;
	v->as = as;
	v->err = err;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

void verdict_note(char *dst, size_t len, const char *fmt, ...)
{
	size_t used = strlen(dst);
	va_list ap;

	if (used + 3 >= len)
		return;
	if (used) {
		dst[used++] = ';';
		dst[used++] = ' ';
		dst[used] = '\0';
	}
	va_start(ap, fmt);
	vsnprintf(dst + used, len - used, fmt, ap);
	va_end(ap);
}

const char *drv_vol_name(const struct fsc_probe *p)
{
	static const char *const names[FSC_TYPE_COUNT] = {
		[FSC_TYPE_UNKNOWN] = "an unrecognised sector", [FSC_TYPE_BLANK] = "a blank sector",
		[FSC_TYPE_EXFAT] = "an exFAT boot sector", [FSC_TYPE_FAT12] = "a FAT12 boot sector",
		[FSC_TYPE_FAT16] = "a FAT16 boot sector", [FSC_TYPE_FAT32] = "a FAT32 boot sector",
		[FSC_TYPE_NTFS] = "an NTFS boot sector", [FSC_TYPE_MBR] = "an MBR partition table",
		[FSC_TYPE_GPT] = "a GPT protective MBR",
	};
	return names[p->type];
}
