/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scripts/third_party/cuda_stub/cuda_runtime.h — the CUDA runtime API
 * declarations NVIDIA's profiler plugins use (the example plugin's CE
 * timing events, Inspector's device lookup), so that they compile without
 * CUDA (scripts/third_party_plugins.sh). Ours, written from the runtime
 * API's documented signatures; nothing more than those plugins use.
 * cudart_stub.c implements them for ncclemu's processes, which have no GPU.
 */
#ifndef CCLSCOPE_CUDA_STUB_CUDA_RUNTIME_H
#define CCLSCOPE_CUDA_STUB_CUDA_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

/* A runtime call's status; 0 is success. */
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
} cudaError_t;

/* Opaque handles, as the runtime declares them. */
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

/* cudaEventCreateWithFlags flags. */
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02

cudaError_t cudaGetDevice(int *device);
const char *cudaGetErrorString(cudaError_t error);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

#ifdef __cplusplus
}

/* The runtime's C++ overload with flags (the C call takes none). */
static inline cudaError_t cudaEventCreate(cudaEvent_t *event,
                                          unsigned int flags) {
  return cudaEventCreateWithFlags(event, flags);
}
#endif

#endif
