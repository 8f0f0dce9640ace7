/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histograms as the kernel side keeps them (abi.h, LATENCY_SLOTS):
 * slot k counts completions that took [2^k, 2^(k+1)) nanoseconds (slot 0
 * also 0 and 1 ns, the last slot everything longer), and their percentiles.
 */
#ifndef DISKIO_LATENCY_HIST_H
#define DISKIO_LATENCY_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include "abi.h"

struct latency_hist {
	uint64_t slots[LATENCY_SLOTS];
};

/* latency_slot(): abi.h's, the one the BPF program counts with. */

/* Lower and upper bound of slot k in nanoseconds: [2^k, 2^(k+1)); slot 0
 * starts at 0. */
uint64_t latency_slot_low_ns(unsigned int slot);
uint64_t latency_slot_high_ns(unsigned int slot);

uint64_t latency_hist_count(const struct latency_hist *h);

/*
 * The q-quantile (0 < q <= 1) in microseconds: the completion of rank
 * ceil(q * count) in slot order, placed as if the slot's n completions were
 * spread evenly over [low, high): the i-th in the middle of the i-th n-th of
 * the slot.  So it is right to within its slot (a factor of 2), strictly
 * inside the slot's bounds, and p50 <= p95 <= p99.  false for an empty
 * histogram.
 */
bool latency_percentile_us(const struct latency_hist *h, double q, double *us);

#endif /* DISKIO_LATENCY_HIST_H */
