/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tests/emu/test_emu_cuda_driver.c — ncclemu's emulated CUDA driver
 * (src/emu/cuda/emu_cuda_driver.c) as a plugin finds it: loaded by path,
 * its calls looked up by name as plugins do (dlsym), each answering as the
 * driver documents. NVIDIA's Inspector looks up cuGetErrorString,
 * cuDeviceGet and cuDeviceGetUuid and switches itself off (init succeeds,
 * no context) when one is missing, so every one of them is here.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

/* The driver's codes, as its header numbers them. */
enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
};

typedef struct {
  unsigned char bytes[16];
} cu_uuid;

typedef int (*get_error_string_fn)(int, const char **);
typedef int (*device_get_fn)(int *, int);
typedef int (*device_get_uuid_fn)(cu_uuid *, int);
typedef int (*ctx_get_device_fn)(int *);
typedef void (*set_device_fn)(int, int);

/* The library under test, opened once for the group. */
static void *driver;

static void *lookup(const char *name) {
  void *fn = dlsym(driver, name);
  if (fn == NULL)
    fail_msg("the emulated driver has no %s", name);
  return fn;
}

static int open_driver(void **state) {
  (void)state;
  driver = dlopen(EMU_CUDA_DRIVER, RTLD_NOW | RTLD_LOCAL);
  if (driver == NULL)
    fail_msg("cannot open %s: %s", EMU_CUDA_DRIVER, dlerror());
  return 0;
}

static int close_driver(void **state) {
  (void)state;
  dlclose(driver);
  return 0;
}

/* cuDeviceGet: the ordinal's device; NULL and a negative ordinal refused. */
static void test_device_get(void **state) {
  (void)state;
  device_get_fn device_get = (device_get_fn)lookup("cuDeviceGet");
  int device = -7;
  assert_int_equal(device_get(&device, 0), CUDA_SUCCESS);
  assert_int_equal(device, 0);
  assert_int_equal(device_get(&device, 3), CUDA_SUCCESS);
  assert_int_equal(device, 3);
  assert_int_equal(device_get(NULL, 0), CUDA_ERROR_INVALID_VALUE);
  assert_int_equal(device_get(&device, -1), CUDA_ERROR_INVALID_DEVICE);
}

/* cuGetErrorString: the driver's text for each code it returns; an unknown
 * code is refused with NULL. */
static void test_error_string(void **state) {
  (void)state;
  get_error_string_fn error_string =
      (get_error_string_fn)lookup("cuGetErrorString");
  const char *text = NULL;
  assert_int_equal(error_string(CUDA_SUCCESS, &text), CUDA_SUCCESS);
  assert_string_equal(text, "no error");
  assert_int_equal(error_string(CUDA_ERROR_INVALID_DEVICE, &text),
                   CUDA_SUCCESS);
  assert_string_equal(text, "invalid device ordinal");
  assert_int_equal(error_string(CUDA_ERROR_INVALID_CONTEXT, &text),
                   CUDA_SUCCESS);
  assert_string_equal(text, "invalid device context");
  assert_int_equal(error_string(CUDA_ERROR_INVALID_VALUE, &text), CUDA_SUCCESS);
  assert_string_equal(text, "invalid argument");
  text = "unchanged";
  assert_int_equal(error_string(999, &text), CUDA_ERROR_INVALID_VALUE);
  assert_null(text);
  assert_int_equal(error_string(CUDA_SUCCESS, NULL), CUDA_ERROR_INVALID_VALUE);
}

/* Inspector's sequence: the current device (what cudaGetDevice asks the
 * driver), its handle, its UUID; the UUID names the node and the device. */
static void test_inspector_sequence(void **state) {
  (void)state;
  set_device_fn set_device = (set_device_fn)lookup("emu_cuda_set_device");
  ctx_get_device_fn ctx_get_device =
      (ctx_get_device_fn)lookup("cuCtxGetDevice");
  device_get_fn device_get = (device_get_fn)lookup("cuDeviceGet");
  device_get_uuid_fn get_uuid = (device_get_uuid_fn)lookup("cuDeviceGetUuid");
  set_device(1, 2);
  int ordinal = -1, device = -1;
  assert_int_equal(ctx_get_device(&ordinal), CUDA_SUCCESS);
  assert_int_equal(ordinal, 2);
  assert_int_equal(device_get(&device, ordinal), CUDA_SUCCESS);
  cu_uuid uuid;
  memset(&uuid, 0xff, sizeof uuid);
  assert_int_equal(get_uuid(&uuid, device), CUDA_SUCCESS);
  assert_int_equal(uuid.bytes[5], 1); /* node */
  assert_int_equal(uuid.bytes[7], 2); /* device */
  set_device(1, -1);
  assert_int_equal(ctx_get_device(&ordinal), CUDA_ERROR_INVALID_CONTEXT);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device_get),
      cmocka_unit_test(test_error_string),
      cmocka_unit_test(test_inspector_sequence),
  };
  return cmocka_run_group_tests(tests, open_driver, close_driver);
}
