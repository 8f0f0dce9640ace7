// SPDX-License-Identifier: GPL-2.0
/* Percentiles of log2 latency histograms (latency_hist.h). */
#include <math.h>
#include "latency_hist.h"

uint64_t latency_slot_low_ns(unsigned int slot)
{
	return slot ? UINT64_C(1) << slot : 0;
}

uint64_t latency_slot_high_ns(unsigned int slot)
{
	return UINT64_C(1) << (slot + 1);
}

uint64_t latency_hist_count(const struct latency_hist *h)
{
	uint64_t count = 0;

	for (unsigned int k = 0; k < LATENCY_SLOTS; k++)
		count += h->slots[k];
	return count;
}

bool latency_percentile_us(const struct latency_hist *h, double q, double *us)
{
	uint64_t count = latency_hist_count(h), rank, below = 0;

	if (!count || !(q > 0))
		return false;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)count);
	if (rank < 1)
		rank = 1;
	for (unsigned int k = 0; k < LATENCY_SLOTS; k++) {
		double low, width;

		if (below + h->slots[k] < rank) {
			below += h->slots[k];
			continue;
		}
		/* The rank-th completion is the (rank - below)-th of this slot's
		 * n: in the middle of its n-th of the slot. */
		low = (double)latency_slot_low_ns(k);
		width = (double)latency_slot_high_ns(k) - low;
		*us = (low + width * ((double)(rank - below) - 0.5) / (double)h->slots[k]) /
		      1000.0;
		return true;
	}
	return false;	/* not reached: rank <= count */
}
