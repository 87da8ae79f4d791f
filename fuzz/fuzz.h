/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - what the harnesses share (fuzz_main.c). */
#ifndef FSC_FUZZ_H
#define FSC_FUZZ_H

#include "fatscope/fatscope.h"

/* Render every finding's message and location (the renderers are fuzzed too). */
void fuzz_render_findings(const struct fsc_findings *fs);

#endif
