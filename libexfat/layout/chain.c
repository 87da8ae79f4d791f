// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * chain.c - the one chain iterator: the clusters of a chain in order,
 * from a FAT (any source: the cached reader, a plan's view) or contiguous
 * (exFAT's NoFatChain), each at most once, and why it ended: an end of
 * chain, a free, bad or unreadable entry, a link outside the data area,
 * or a loop, with where the loop closes.
 *
 * A loop is found before the first cluster is given, by Brent's cycle
 * test over the links (no memory per cluster): the first cluster met
 * twice is number mu of the chain, the loop has lam clusters, and the
 * iterator stops after mu + lam clusters, the link from the last one
 * going back to number mu.  Brent's fast walker takes at most 3r steps
 * for a loop of r = mu + lam clusters (its mark sits at index 2^j - 1
 * for a window of 2^j steps, and the first window with
 * 2^j >= max(mu + 1, lam) holds the meeting), so a test bounded to
 * limit clusters costs at most 3 * limit + 3 reads of the FAT.
 */
#include "config.h"

#include "layout/layout.h"

/* The link from c when it is a cluster of the data area, else 0. */
static uint32_t step(const struct layout_chain *it, uint32_t c)
{
	uint32_t v = it->contiguous ? c + 1 : it->next(it->ctx, c);

	return layout_cluster_valid(it->l, v) ? v : 0;
}

/* Brent's test: it->lam > 0 and it->mu when the chain loops within its first limit clusters. */
static void find_loop(struct layout_chain *it, uint64_t limit)
{
	uint32_t first = it->link, mark = first, c = step(it, first);
	uint64_t power = 1, steps = 1, mu, lam = 1;

	while (c != mark) {
		if (!c || steps > 3 * limit + 3)
			return;
		if (power == lam) {
			mark = c;
			power *= 2;
			lam = 0;
		}
		c = step(it, c);
		lam++;
		steps++;
	}
	/* A walker lam clusters ahead meets one from the start at number mu. */
	mark = c = first;
	for (uint64_t i = 0; i < lam; i++)
		c = step(it, c);
	for (mu = 0; mark != c; mu++) {
		mark = step(it, mark);
		c = step(it, c);
	}
	if (mu + lam <= limit) {
		it->mu = mu;
		it->lam = lam;
	}
}

void layout_chain_begin(struct layout_chain *it, const struct layout *l, layout_next_fn next, void *ctx,
			uint32_t first, uint64_t limit, bool contiguous)
{
	*it = (struct layout_chain){ .l = l, .next = next, .ctx = ctx, .contiguous = contiguous, .link = first,
				     .end = LAYOUT_CHAIN_ON };
	if (!contiguous && layout_cluster_valid(l, first) && limit)
		find_loop(it, limit);
}

static bool stop(struct layout_chain *it, enum layout_chain_end end)
{
	it->end = end;
	return false;
}

bool layout_chain_next(struct layout_chain *it, uint32_t *c)
{
	if (it->end != LAYOUT_CHAIN_ON)
		return false;
	if (it->n) {
		if (layout_chain_at_loop(it)) {
			it->link = it->loop_to;
			return stop(it, LAYOUT_CHAIN_LOOP);
		}
		it->link = it->contiguous ? it->cur + 1 : it->next(it->ctx, it->cur);
		switch (it->link) {
		case LAYOUT_END:
			return stop(it, LAYOUT_CHAIN_END);
		case LAYOUT_FREE:
			return stop(it, LAYOUT_CHAIN_FREE);
		case LAYOUT_BAD:
			return stop(it, LAYOUT_CHAIN_BAD);
		case LAYOUT_UNREADABLE:
			return stop(it, LAYOUT_CHAIN_UNREADABLE);
		}
	}
	if (!layout_cluster_valid(it->l, it->link))
		return stop(it, LAYOUT_CHAIN_RANGE);
	if (it->n >= it->l->held)	/* a valid link after every cluster: a loop */
		return stop(it, LAYOUT_CHAIN_LONG);
	it->cur = it->link;
	if (it->n == it->mu)
		it->loop_to = it->cur;
	it->n++;
	*c = it->cur;
	return true;
}
