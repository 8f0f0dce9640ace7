/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A program started with fd 0, 1 or 2 closed would give the next file it
 * opens that number: an epoll or BPF map fd would then receive its output.
 */
#ifndef DISKIO_STD_FDS_H
#define DISKIO_STD_FDS_H

/* Each of fds 0, 1 and 2 that is closed opened on /dev/null (read-only for
 * 0).  0, or -1 when one cannot be. */
int std_fds_reopen(void);

#endif /* DISKIO_STD_FDS_H */
