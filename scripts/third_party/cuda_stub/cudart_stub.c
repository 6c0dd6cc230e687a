/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scripts/third_party/cuda_stub/cudart_stub.c — libcudart.so for running
 * NVIDIA's profiler plugins under ncclemu (scripts/third_party_plugins.sh):
 * the runtime calls of cuda_runtime.h, for a process without a GPU. Ours.
 *
 * cudaGetDevice asks the CUDA driver the process loaded (ncclemu's emulated
 * one, src/emu/cuda/, which knows the device each thread set), as the real
 * runtime asks its driver for the current context's device. Events keep the
 * host time they were recorded at: ncclemu's streams are no GPU queue, so
 * whatever a stream held is done when an event is recorded on it, a query
 * always finds it complete, and the elapsed time of two events is the host
 * time between their records.
 */
#define _GNU_SOURCE
#include "cuda_runtime.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

/* An event: how it was created and when it was last recorded. */
struct CUevent_st {
  unsigned int flags; /* cudaEventCreateWithFlags' flags */
  int recorded;       /* 1 once cudaEventRecord was called on it */
  struct timespec at; /* CLOCK_MONOTONIC of the last record */
};

/* The driver's cuCtxGetDevice, as the process loaded it (NULL: none). */
typedef int (*ctx_get_device_fn)(int *device);

cudaError_t cudaGetDevice(int *device) {
  if (device == NULL)
    return cudaErrorInvalidValue;
  ctx_get_device_fn ctx_get_device =
      (ctx_get_device_fn)dlsym(RTLD_DEFAULT, "cuCtxGetDevice");
  if (ctx_get_device == NULL)
    return cudaErrorNoDevice;
  if (ctx_get_device(device) != 0)
    return cudaErrorNoDevice;
  return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorNoDevice:
    return "no CUDA-capable device is detected";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  case cudaErrorNotReady:
    return "device not ready";
  }
  return "unrecognized error code";
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  if (event == NULL)
    return cudaErrorInvalidValue;
  struct CUevent_st *created = calloc(1, sizeof *created);
  if (created == NULL)
    return cudaErrorInvalidValue;
  created->flags = flags;
  *event = created;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  (void)stream; /* every stream is idle: nothing to wait behind */
  if (event == NULL)
    return cudaErrorInvalidResourceHandle;
  clock_gettime(CLOCK_MONOTONIC, &event->at);
  event->recorded = 1;
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (event == NULL)
    return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                 cudaEvent_t end) {
  if (ms == NULL)
    return cudaErrorInvalidValue;
  if (start == NULL || end == NULL || !start->recorded || !end->recorded)
    return cudaErrorInvalidResourceHandle;
  if ((start->flags | end->flags) & cudaEventDisableTiming)
    return cudaErrorInvalidResourceHandle;
  double ns = (double)(end->at.tv_sec - start->at.tv_sec) * 1e9 +
              (double)(end->at.tv_nsec - start->at.tv_nsec);
  *ms = (float)(ns / 1e6);
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (event == NULL)
    return cudaErrorInvalidResourceHandle;
  free(event);
  return cudaSuccess;
}
