/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scripts/third_party/cuda_stub/cuda.h — the few CUDA driver API types
 * that NVIDIA's profiler plugins name, so that they compile on a machine
 * without CUDA (scripts/third_party_plugins.sh). Ours, written from the
 * driver API's documented types; nothing more than those plugins use. The
 * plugins look the driver functions up at run time (dlopen/dlsym), under
 * ncclemu they find its emulated driver (src/emu/cuda/).
 */
#ifndef CCLSCOPE_CUDA_STUB_CUDA_H
#define CCLSCOPE_CUDA_STUB_CUDA_H

#ifdef __cplusplus
extern "C" {
#endif

/* A driver call's status; 0 is success. */
typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
} CUresult;

/* A device ordinal as the driver hands it out. */
typedef int CUdevice;

/* A device's 16-byte UUID. */
typedef struct CUuuid_st {
  char bytes[16];
} CUuuid;

#ifdef __cplusplus
}
#endif

#endif
