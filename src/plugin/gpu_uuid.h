/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/plugin/gpu_uuid.h — the UUID of the GPU the calling thread's CUDA/HIP
 * context uses, best effort. The driver libraries are only looked up if the
 * process already loaded them (RTLD_NOLOAD): never a link dependency, never
 * a driver initialisation caused by us.
 */
#ifndef CCLSCOPE_GPU_UUID_H
#define CCLSCOPE_GPU_UUID_H

#include <stddef.h>

/* Writes "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" or "" into out, and the
 * device's ordinal (as the process numbers its visible devices) or -1 into
 * *device. */
void cs_gpu_uuid_current(char *out, size_t outlen, int *device);

#endif
