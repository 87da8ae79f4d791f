// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * verdict.c - turn driver verdicts into risks: a driver of the other
 * family claiming the volume (wrong-driver), a type or geometry other
 * than the specification's (misreads), a volume the specification or
 * today's mainline driver rejects being mounted anyway (accepts-corrupt).
 *
 * Consumes: a probe and the verdicts judged on it.  Produces: risk lines
 * in plain words.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/drivers.h"

FSC_EXPORT const char *fsc_risk_kind_name(enum fsc_risk_kind k)
{
	return k == FSC_RISK_WRONG_DRIVER ? "wrong-driver" :
	       k == FSC_RISK_MISREADS ? "misreads" : "accepts-corrupt";
}

struct risk_sink {
	struct fsc_risk *out;
	size_t max, n;
};

__attribute__((format(printf, 4, 5)))
static void add_risk(struct risk_sink *rs, const struct fsc_verdict *v, enum fsc_risk_kind k,
		     const char *fmt, ...)
{
	va_list ap;

	if (rs->n < rs->max) {
		struct fsc_risk *r = &rs->out[rs->n];

		r->drv = v->drv;
		r->kind = k;
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
	}
	rs->n++;
}

/* What today's mainline driver for the volume's family does. */
static bool mainline_refuses(const struct fsc_probe *p, char *why, size_t len)
{
	const char *id = p->type == FSC_TYPE_EXFAT ? "linux-exfat" : "linux-vfat";
	struct fsc_verdict mv;

	drivers_judge(p, fsc_driver_at((size_t)fsc_driver_lookup(id)), &mv);
	snprintf(why, len, "%s", mv.why);
	return mv.action == FSC_REFUSES;
}

/* The first finding of severity ERROR or worse, for the risk text. */
static const char *first_error(const struct fsc_probe *p, char *buf, size_t len)
{
	for (size_t i = 0; i < p->findings.n; i++) {
		const struct fsc_finding *f = &p->findings.v[i];

		if (fsc_problem_info(f->id)->severity >= FSC_SEV_ERROR) {
			fsc_finding_message(f, buf, len);
			return buf;
		}
	}
	return NULL;
}

static bool family_matches(const struct fsc_probe *p, const struct fsc_verdict *v)
{
	switch (v->drv->family) {
	case FSC_FAM_EXFAT:
		return p->type == FSC_TYPE_EXFAT && v->as == FSC_TYPE_EXFAT;
	case FSC_FAM_FAT:
		return fsc_type_is_fat(p->type);
	default:
		return (p->type == FSC_TYPE_EXFAT) == (v->as == FSC_TYPE_EXFAT) &&
		       fsc_type_is_fat(p->type) == fsc_type_is_fat(v->as);
	}
}

static void judge_one(const struct fsc_probe *p, const struct fsc_verdict *v, struct risk_sink *rs)
{
	const char *verb = v->drv->family == FSC_FAM_BLKID ? "identifies" : "mounts";
	char err[sizeof(v->why)];

	if (v->action == FSC_REFUSES)
		return;
	if (!family_matches(p, v)) {
		add_risk(rs, v, FSC_RISK_WRONG_DRIVER, "%s %s as %s: %s", verb, drv_vol_name(p),
			 fsc_type_name(v->as), v->why);
		return;
	}
	if (p->type != FSC_TYPE_EXFAT && !fsc_type_is_fat(p->type))
		return;
	if (v->action == FSC_MISREADS)
		add_risk(rs, v, FSC_RISK_MISREADS, "%s", v->why);
	else if (v->as != p->type)
		add_risk(rs, v, FSC_RISK_MISREADS, "%s it as %s, the specification makes it %s (%llu clusters)",
			 verb, fsc_type_name(v->as), fsc_type_name(p->type),
			 (unsigned long long)p->fat.clusters);
	if (first_error(p, err, sizeof(err)))
		add_risk(rs, v, FSC_RISK_ACCEPTS_CORRUPT, "%s it although the specification rejects it: %s%s%s",
			 verb, err, v->effect[0] ? "; it " : "", v->effect);
	else if (mainline_refuses(p, err, sizeof(err)))
		add_risk(rs, v, FSC_RISK_ACCEPTS_CORRUPT, "%s it although today's Linux refuses it (%s)%s%s",
			 verb, err, v->effect[0] ? "; it " : "", v->effect);
	else if (v->effect[0] && (p->ex.volume_flags & 6))
		add_risk(rs, v, FSC_RISK_ACCEPTS_CORRUPT, "mounts a volume marked %s without a check and %s",
			 (p->ex.volume_flags & 2) ? "dirty" : "with media failures", v->effect);
}

size_t drivers_risks(const struct fsc_probe *p, const struct fsc_verdict *v, size_t nv, struct fsc_risk *out,
		     size_t max)
{
	struct risk_sink rs = { out, max, 0 };

	for (size_t i = 0; i < nv; i++)
		judge_one(p, &v[i], &rs);
	return rs.n;
}

struct fsc_judgement {
	struct fsc_verdict *v;
	size_t nv;
	struct fsc_risk *r;
	size_t nr;
};

FSC_EXPORT struct fsc_judgement *fsc_judge(const struct fsc_probe *p, const bool *sel)
{
	struct fsc_judgement *j = calloc(1, sizeof(*j));
	size_t nd = fsc_driver_count();

	if (!j || !(j->v = calloc(nd, sizeof(*j->v)))) {
		free(j);
		return NULL;
	}
	for (size_t i = 0; i < nd; i++)
		if (!sel || sel[i])
			drivers_judge(p, fsc_driver_at(i), &j->v[j->nv++]);
	j->nr = drivers_risks(p, j->v, j->nv, NULL, 0);
	if (j->nr && !(j->r = calloc(j->nr, sizeof(*j->r)))) {
		fsc_judgement_free(j);
		return NULL;
	}
	drivers_risks(p, j->v, j->nv, j->r, j->nr);
	return j;
}

FSC_EXPORT void fsc_judgement_free(struct fsc_judgement *j)
{
	if (!j)
		return;
	free(j->v);
	free(j->r);
	free(j);
}

FSC_EXPORT size_t fsc_judgement_verdicts(const struct fsc_judgement *j)
{
	return j->nv;
}

FSC_EXPORT const struct fsc_verdict *fsc_judgement_verdict(const struct fsc_judgement *j, size_t i)
{
	return i < j->nv ? &j->v[i] : NULL;
}

FSC_EXPORT size_t fsc_judgement_risks(const struct fsc_judgement *j)
{
	return j->nr;
}

FSC_EXPORT const struct fsc_risk *fsc_judgement_risk(const struct fsc_judgement *j, size_t i)
{
	return i < j->nr ? &j->r[i] : NULL;
}

FSC_EXPORT const struct fsc_driver *fsc_verdict_driver(const struct fsc_verdict *v)
{
	return v->drv;
}

FSC_EXPORT enum fsc_action fsc_verdict_action(const struct fsc_verdict *v)
{
	return v->action;
}

FSC_EXPORT enum fsc_type fsc_verdict_as(const struct fsc_verdict *v)
{
	return v->as;
}

FSC_EXPORT int fsc_verdict_errno(const struct fsc_verdict *v)
{
	return v->err;
}

FSC_EXPORT const char *fsc_verdict_why(const struct fsc_verdict *v)
{
	return v->why;
}

FSC_EXPORT const char *fsc_verdict_effect(const struct fsc_verdict *v)
{
	return v->effect;
}

FSC_EXPORT const char *fsc_verdict_warning(const struct fsc_verdict *v)
{
	return v->warning;
}

FSC_EXPORT const struct fsc_driver *fsc_risk_driver(const struct fsc_risk *r)
{
	return r->drv;
}

FSC_EXPORT enum fsc_risk_kind fsc_risk_kind_of(const struct fsc_risk *r)
{
	return r->kind;
}

FSC_EXPORT const char *fsc_risk_why(const struct fsc_risk *r)
{
	return r->why;
}
