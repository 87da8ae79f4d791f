/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit.h - the groups of tests/unit/unit, one a test_*.c file: each
 * returns the number of its tests that failed (cmocka_run_group_tests).
 */
#ifndef FSC_TEST_UNIT_H
#define FSC_TEST_UNIT_H

int unit_api(void);
int unit_drivers(void);
int unit_fault(void);
int unit_fields(void);
int unit_findings(void);
int unit_hash(void);
int unit_label(void);
int unit_layout(void);
int unit_plan(void);
int unit_problems(void);
int unit_random(void);
int unit_read(void);
int unit_scan(void);
int unit_tree(void);
int unit_upcase(void);

#endif
