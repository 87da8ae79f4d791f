/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz.h - what the harnesses share (fuzz_main.c). */
#ifndef FSC_FUZZ_H
#define FSC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "fatscope/fatscope.h"

/*
 * A harness's entry point: LLVMFuzzerTestOneInput for AFL++ and libFuzzer
 * (one harness a program), fuzz_one_NAME in fuzz/replay, which holds them
 * all (FSC_FUZZ_REPLAY).
 */
#ifdef FSC_FUZZ_REPLAY
#define FUZZ_ENTRY(name) fuzz_one_##name
int fuzz_one_probe(const uint8_t *data, size_t len);
int fuzz_one_fsck(const uint8_t *data, size_t len);
int fuzz_one_dump(const uint8_t *data, size_t len);
int fuzz_one_label(const uint8_t *data, size_t len);
int fuzz_one_repair(const uint8_t *data, size_t len);
int fuzz_one_container(const uint8_t *data, size_t len);
#else
#define FUZZ_ENTRY(name) LLVMFuzzerTestOneInput
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);
#endif

/* Render every finding's message and location (the renderers are fuzzed too). */
void fuzz_render_findings(const struct fsc_findings *fs);

#endif
