/*
 * src/emu/cuda/emu_cuda_driver.c — the few CUDA driver calls a profiler
 * plugin makes to learn its GPU, for ncclemu's emulated processes.
 *
 * Built as libncclemu-cuda.so with the soname libcuda.so.1: each ncclemu
 * worker loads it (RTLD_GLOBAL) before the plugin, so a plugin that looks
 * for an already loaded CUDA driver (dlopen("libcuda.so.1", RTLD_NOLOAD))
 * finds this one. The worker sets the calling thread's current device
 * before each communicator init (emu_cuda_set_device), as an application
 * calls cudaSetDevice before ncclCommInitRank. Nothing else of CUDA is here.
 */
#include <stdint.h>
#include <string.h>

#define CUDA_SUCCESS 0
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_INVALID_DEVICE 101
#define CUDA_ERROR_INVALID_CONTEXT 201

typedef struct {
  unsigned char bytes[16];
} emu_cu_uuid;

/* The exported calls (the driver's names and signatures, our types). */
void emu_cuda_set_device(int node, int device);
int cuCtxGetDevice(int *device);
int cuDeviceGetUuid(emu_cu_uuid *uuid, int device);
int cuDeviceGetUuid_v2(emu_cu_uuid *uuid, int device);

static _Thread_local int current_device = -1;
static int node_index; /* which emulated node: part of every UUID */

/* ncclemu: this thread's device from now on (-1: none, as before any
 * cudaSetDevice); the node makes UUIDs differ across emulated hosts. */
void emu_cuda_set_device(int node, int device) {
  node_index = node;
  current_device = device;
}

int cuCtxGetDevice(int *device) {
  if (device == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (current_device < 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  *device = current_device;
  return CUDA_SUCCESS;
}

/* A stable UUID per (node, device): "GPU-e4d00000-NNNN-DDDD-..." */
static int device_uuid(emu_cu_uuid *uuid, int device) {
  if (uuid == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (device < 0 || device > 0xffff)
    return CUDA_ERROR_INVALID_DEVICE;
  memset(uuid, 0, sizeof *uuid);
  uuid->bytes[0] = 0xe4;
  uuid->bytes[1] = 0xd0;
  uuid->bytes[4] = (unsigned char)(node_index >> 8);
  uuid->bytes[5] = (unsigned char)node_index;
  uuid->bytes[6] = (unsigned char)(device >> 8);
  uuid->bytes[7] = (unsigned char)device;
  return CUDA_SUCCESS;
}

int cuDeviceGetUuid(emu_cu_uuid *uuid, int device) {
  return device_uuid(uuid, device);
}

int cuDeviceGetUuid_v2(emu_cu_uuid *uuid, int device) {
  return device_uuid(uuid, device);
}
