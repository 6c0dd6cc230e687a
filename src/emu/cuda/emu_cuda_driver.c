/* SPDX-License-Identifier: Apache-2.0 */
/*
 * src/emu/cuda/emu_cuda_driver.c — the few CUDA driver calls a profiler
 * plugin makes to learn its GPU, for ncclemu's emulated processes.
 *
 * Built as libncclemu-cuda.so with the soname libcuda.so.1: each ncclemu
 * worker loads it (RTLD_GLOBAL) before the plugin, so a plugin that looks
 * for an already loaded CUDA driver (dlopen("libcuda.so.1", RTLD_NOLOAD))
 * finds this one. The worker sets the calling thread's current device
 * before each communicator init (emu_cuda_set_device), as an application
 * calls cudaSetDevice before ncclCommInitRank. Besides those: cuDeviceGet
 * and cuGetErrorString, which NVIDIA's Inspector plugin looks up with the
 * UUID call and without which it switches itself off. Nothing else of CUDA
 * is here.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

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
int cuDeviceGet(int *device, int ordinal);
int cuGetErrorString(int error, const char **description);

/* The current device of each thread that set one, by kernel thread id.
 * A table, not thread-local variables: thread-local storage in a library
 * loaded with dlopen trips ThreadSanitizer's runtime (it failed to map
 * shadow memory for it in our TSan builds). */
#define MAX_THREADS 1024
typedef struct {
  pid_t tid; /* 0: free */
  int node;
  int device;
} thread_device;
static thread_device threads[MAX_THREADS];
static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;

/* ncclemu: this thread's device from now on (-1: none, as before any
 * cudaSetDevice); the node makes UUIDs differ across emulated hosts. Both
 * are per thread, as cudaSetDevice is: concurrent inits (ncclCommInitAll's
 * threads) set their own. */
void emu_cuda_set_device(int node, int device) {
  pid_t tid = (pid_t)syscall(SYS_gettid);
  pthread_mutex_lock(&threads_lock);
  thread_device *free_slot = NULL, *mine = NULL;
  for (int i = 0; i < MAX_THREADS && !mine; i++) {
    if (threads[i].tid == tid)
      mine = &threads[i];
    else if (threads[i].tid == 0 && !free_slot)
      free_slot = &threads[i];
  }
  if (!mine)
    mine = free_slot;
  if (mine) {
    mine->tid = tid;
    mine->node = node;
    mine->device = device;
  }
  pthread_mutex_unlock(&threads_lock);
}

/* The calling thread's (node, device); false when it set none. */
static bool current(int *node, int *device) {
  pid_t tid = (pid_t)syscall(SYS_gettid);
  bool found = false;
  pthread_mutex_lock(&threads_lock);
  for (int i = 0; i < MAX_THREADS && !found; i++)
    if (threads[i].tid == tid && threads[i].device >= 0) {
      *node = threads[i].node;
      *device = threads[i].device;
      found = true;
    }
  pthread_mutex_unlock(&threads_lock);
  return found;
}

int cuCtxGetDevice(int *device) {
  int node;
  if (device == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (!current(&node, device))
    return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

/* The device of an ordinal is the ordinal: any the UUIDs accept. */
int cuDeviceGet(int *device, int ordinal) {
  if (device == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  if (ordinal < 0 || ordinal > 0xffff)
    return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

/* The driver's descriptions of the codes returned here; an unknown code
 * gives NULL and CUDA_ERROR_INVALID_VALUE, as the driver documents. */
int cuGetErrorString(int error, const char **description) {
  if (description == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
  case CUDA_SUCCESS:
    *description = "no error";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_VALUE:
    *description = "invalid argument";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_DEVICE:
    *description = "invalid device ordinal";
    return CUDA_SUCCESS;
  case CUDA_ERROR_INVALID_CONTEXT:
    *description = "invalid device context";
    return CUDA_SUCCESS;
  }
  *description = NULL;
  return CUDA_ERROR_INVALID_VALUE;
}

/* A stable UUID per (node, device): "GPU-e4d00000-NNNN-DDDD-..." */
static int device_uuid(emu_cu_uuid *uuid, int device) {
  if (uuid == NULL)
    return CUDA_ERROR_INVALID_VALUE;
  int node = 0, current_device;
  if (device < 0 || device > 0xffff)
    return CUDA_ERROR_INVALID_DEVICE;
  if (!current(&node, &current_device))
    node = 0;
  memset(uuid, 0, sizeof *uuid);
  uuid->bytes[0] = 0xe4;
  uuid->bytes[1] = 0xd0;
  uuid->bytes[4] = (unsigned char)(node >> 8);
  uuid->bytes[5] = (unsigned char)node;
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
