// The header every translation unit starts with (Clang's -include): the CUDA language and runtime,
// and the few PyTorch and pybind11 names the rules look for. It stands in for the CUDA toolkit and
// for torch's headers, which a Mac has neither of and which would cost seconds per file to parse
// (docs/clang-engine.md has the figures). What it declares is what the rules can see by type: a
// call to a CUDA function it does not declare is an undeclared name and is not reported.
//
// Registrations (TORCH_LIBRARY*, PYBIND11_MODULE) expand to a function whose `annotate` attribute
// carries the macro arguments as written, so the op check reads them back from the AST.
#include "analyzer/cuda/shim.hpp"

namespace mpsport::cuda {

std::string_view shim_header() {
    return R"shim(
#pragma clang system_header
#include <stddef.h>
#include <stdint.h>
#include <string.h>  /* memcpy & co.: torch's headers bring them, and CPU branches copy with them */
#include <initializer_list>

/* ---- CUDA language ---- */
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __CUDACC__ 1
#define CUDART_VERSION 11080
#define __CUDA_ARCH_LIST__ 700

#define MPSPORT_VEC(T, N) struct N##1 { T x; }; struct N##2 { T x, y; }; struct N##3 { T x, y, z; }; struct N##4 { T x, y, z, w; }; \
  __host__ __device__ N##2 make_##N##2(T, T); __host__ __device__ N##3 make_##N##3(T, T, T); __host__ __device__ N##4 make_##N##4(T, T, T, T);
MPSPORT_VEC(float, float) MPSPORT_VEC(double, double) MPSPORT_VEC(int, int) MPSPORT_VEC(unsigned, uint)
MPSPORT_VEC(long long, longlong) MPSPORT_VEC(char, char) MPSPORT_VEC(unsigned char, uchar) MPSPORT_VEC(short, short)
#undef MPSPORT_VEC
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
extern const __device__ uint3 threadIdx;
extern const __device__ uint3 blockIdx;
extern const __device__ dim3 blockDim;
extern const __device__ dim3 gridDim;
extern const __device__ int warpSize;

struct __half { unsigned short x; __host__ __device__ __half(); __host__ __device__ __half(float); __host__ __device__ operator float() const; };
struct __half2 { __half x, y; };
struct __nv_bfloat16 { unsigned short x; __host__ __device__ __nv_bfloat16(); __host__ __device__ __nv_bfloat16(float); __host__ __device__ operator float() const; };
typedef __half half;
__host__ __device__ __half __float2half(float);
__host__ __device__ float __half2float(__half);

template <class T> __host__ __device__ T min(T, T);
template <class T> __host__ __device__ T max(T, T);
template <class T> __device__ T __ldg(const T*);
__device__ float __expf(float); __device__ float __logf(float); __device__ float __fdividef(float, float);
__device__ float __saturatef(float); __device__ int __popc(unsigned); __device__ int __clz(int); __device__ int __ffs(int);
__device__ float rsqrtf(float);
typedef unsigned int uint; typedef unsigned short ushort; typedef unsigned char uchar;
__device__ float __int_as_float(int); __device__ int __float_as_int(float); __device__ unsigned __float_as_uint(float);
__device__ float __uint_as_float(unsigned); __device__ long long __double_as_longlong(double); __device__ double __longlong_as_double(long long);
#define MPSPORT_ROUNDED(op) __device__ float __f##op##_rn(float, float); __device__ float __f##op##_rz(float, float); \
  __device__ double __d##op##_rn(double, double);
MPSPORT_ROUNDED(add) MPSPORT_ROUNDED(sub) MPSPORT_ROUNDED(mul) MPSPORT_ROUNDED(div)
#undef MPSPORT_ROUNDED
__device__ float __fmaf_rn(float, float, float); __device__ float __frcp_rn(float); __device__ float __fsqrt_rn(float);
__device__ int __float2int_rn(float); __device__ int __float2int_rd(float); __device__ int __float2int_ru(float); __device__ int __float2int_rz(float);
__device__ float __int2float_rn(int); __device__ float __sinf(float); __device__ float __cosf(float); __device__ float __powf(float, float);
__device__ void __sincosf(float, float*, float*); __device__ void sincosf(float, float*, float*); __device__ long long clock64(); __device__ int __mul24(int, int);
#ifdef __CUDA__
/* Device overloads of the math library: kernels call them without including <cmath>, and parsing
   <cmath> would cost more than the rest of a typical file. Host code includes what it uses. */
#define MPSPORT_MATH1(f) __device__ float f##f(float) noexcept; __device__ double f(double) noexcept;
MPSPORT_MATH1(sqrt) MPSPORT_MATH1(exp) MPSPORT_MATH1(log) MPSPORT_MATH1(sin) MPSPORT_MATH1(cos) MPSPORT_MATH1(tan)
MPSPORT_MATH1(fabs) MPSPORT_MATH1(floor) MPSPORT_MATH1(ceil) MPSPORT_MATH1(round) MPSPORT_MATH1(tanh) MPSPORT_MATH1(log1p)
MPSPORT_MATH1(expm1) MPSPORT_MATH1(asin) MPSPORT_MATH1(acos) MPSPORT_MATH1(atan) MPSPORT_MATH1(erf) MPSPORT_MATH1(cbrt)
MPSPORT_MATH1(trunc) MPSPORT_MATH1(log2) MPSPORT_MATH1(exp2)
#undef MPSPORT_MATH1
__device__ float powf(float, float) noexcept; __device__ double pow(double, double) noexcept; __device__ float atan2f(float, float) noexcept;
__device__ double atan2(double, double) noexcept; __device__ float fminf(float, float) noexcept; __device__ float fmaxf(float, float) noexcept;
__device__ double fmin(double, double) noexcept; __device__ double fmax(double, double) noexcept; __device__ float fmodf(float, float) noexcept;
__device__ float copysignf(float, float) noexcept;  __device__ float fmaf(float, float, float) noexcept;
__device__ int abs(int) noexcept; __device__ float abs(float) noexcept; __device__ float rnorm3df(float, float, float); __device__ float norm3df(float, float, float);
#endif

/* synchronisation, warp intrinsics, atomics */
__device__ void __syncthreads();
__device__ int __syncthreads_count(int);
__device__ int __syncthreads_and(int);
__device__ int __syncthreads_or(int);
__device__ void __syncwarp(unsigned = 0xffffffff);
__device__ void __threadfence();
__device__ void __threadfence_block();
__device__ unsigned __activemask();
__device__ unsigned __ballot_sync(unsigned, int);
__device__ int __any_sync(unsigned, int);
__device__ int __all_sync(unsigned, int);
__device__ unsigned __match_any_sync(unsigned, int);
#define MPSPORT_SHFL(T) \
  __device__ T __shfl_sync(unsigned, T, int, int = 32); __device__ T __shfl_up_sync(unsigned, T, unsigned, int = 32); \
  __device__ T __shfl_down_sync(unsigned, T, unsigned, int = 32); __device__ T __shfl_xor_sync(unsigned, T, int, int = 32); \
  __device__ T __shfl(T, int, int = 32); __device__ T __shfl_down(T, unsigned, int = 32); __device__ T __shfl_xor(T, int, int = 32);
MPSPORT_SHFL(int) MPSPORT_SHFL(unsigned) MPSPORT_SHFL(float) MPSPORT_SHFL(double) MPSPORT_SHFL(long long) MPSPORT_SHFL(__half)
#undef MPSPORT_SHFL
#define MPSPORT_ATOMIC(T) \
  __device__ T atomicAdd(T*, T); __device__ T atomicExch(T*, T); __device__ T atomicAdd_block(T*, T); __device__ T atomicAdd_system(T*, T);
#define MPSPORT_ATOMIC_INT(T) MPSPORT_ATOMIC(T) \
  __device__ T atomicSub(T*, T); __device__ T atomicMin(T*, T); __device__ T atomicMax(T*, T); __device__ T atomicCAS(T*, T, T); \
  __device__ T atomicAnd(T*, T); __device__ T atomicOr(T*, T); __device__ T atomicXor(T*, T);
MPSPORT_ATOMIC_INT(int) MPSPORT_ATOMIC_INT(unsigned) MPSPORT_ATOMIC_INT(unsigned long long) MPSPORT_ATOMIC(float) MPSPORT_ATOMIC(double)
#undef MPSPORT_ATOMIC_INT
#undef MPSPORT_ATOMIC
__device__ unsigned atomicInc(unsigned*, unsigned);
__device__ unsigned atomicDec(unsigned*, unsigned);

namespace cooperative_groups {
struct thread_group { __device__ void sync() const; __device__ unsigned size() const; __device__ unsigned thread_rank() const; };
struct thread_block : thread_group { __device__ dim3 group_index() const; __device__ dim3 thread_index() const; };
struct grid_group : thread_group { __device__ bool is_valid() const; };
struct coalesced_group : thread_group { template <class T> __device__ T shfl(T, int) const; __device__ unsigned ballot(int) const; };
__device__ coalesced_group coalesced_threads();
template <unsigned N> struct thread_block_tile : thread_group {
  template <class T> __device__ T shfl(T, int) const; template <class T> __device__ T shfl_down(T, unsigned) const;
  template <class T> __device__ T shfl_xor(T, unsigned) const; __device__ unsigned ballot(int) const;
};
__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
template <unsigned N, class G> __device__ thread_block_tile<N> tiled_partition(const G&);
__device__ thread_group tiled_partition(const thread_group&, unsigned);
template <class G, class T, class Op> __device__ T reduce(const G&, T, Op);
}  // namespace cooperative_groups

/* ---- CUDA runtime and driver API ---- */
typedef int cudaError_t;
enum { cudaSuccess = 0 };
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct CUgraph_st* cudaGraph_t;
typedef struct CUgraphExec_st* cudaGraphExec_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault };
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed };
struct cudaDeviceProp { char name[256]; size_t totalGlobalMem; size_t sharedMemPerBlock; int multiProcessorCount; int major, minor; int maxThreadsPerBlock; int warpSize; };
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
extern "C" {
unsigned __cudaPushCallConfiguration(dim3, dim3, size_t = 0, cudaStream_t = 0);
cudaError_t cudaConfigureCall(dim3, dim3, size_t = 0, cudaStream_t = 0);
cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t);
cudaError_t cudaMalloc(void**, size_t);
cudaError_t cudaMallocManaged(void**, size_t, unsigned = 1);
cudaError_t cudaMallocHost(void**, size_t);
cudaError_t cudaMallocAsync(void**, size_t, cudaStream_t);
cudaError_t cudaMallocPitch(void**, size_t*, size_t, size_t);
cudaError_t cudaHostAlloc(void**, size_t, unsigned);
cudaError_t cudaFree(void*);
cudaError_t cudaFreeHost(void*);
cudaError_t cudaFreeAsync(void*, cudaStream_t);
cudaError_t cudaMemcpy(void*, const void*, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpyAsync(void*, const void*, size_t, cudaMemcpyKind, cudaStream_t = 0);
cudaError_t cudaMemcpy2D(void*, size_t, const void*, size_t, size_t, size_t, cudaMemcpyKind);
cudaError_t cudaMemcpyPeer(void*, int, const void*, int, size_t);
cudaError_t cudaMemset(void*, int, size_t);
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t = 0);
cudaError_t cudaMemGetInfo(size_t*, size_t*);
cudaError_t cudaHostRegister(void*, size_t, unsigned);
cudaError_t cudaHostUnregister(void*);
cudaError_t cudaStreamCreate(cudaStream_t*);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t*, unsigned);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t*, unsigned, int);
cudaError_t cudaStreamDestroy(cudaStream_t);
cudaError_t cudaStreamSynchronize(cudaStream_t);
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned = 0);
cudaError_t cudaStreamQuery(cudaStream_t);
cudaError_t cudaEventCreate(cudaEvent_t*);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t*, unsigned);
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t);
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t);
cudaError_t cudaEventDestroy(cudaEvent_t);
cudaError_t cudaEventQuery(cudaEvent_t);
cudaError_t cudaStreamBeginCapture(cudaStream_t, cudaStreamCaptureMode);
cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t*);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t*, cudaGraph_t, void*, char*, size_t);
cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t);
cudaError_t cudaGraphDestroy(cudaGraph_t);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaSetDevice(int);
cudaError_t cudaGetDevice(int*);
cudaError_t cudaGetDeviceCount(int*);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp*, int);
cudaError_t cudaDeviceGetAttribute(int*, int, int);
cudaError_t cudaDeviceCanAccessPeer(int*, int, int);
cudaError_t cudaDeviceEnablePeerAccess(int, unsigned);
cudaError_t cudaFuncSetAttribute(const void*, int, int);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, const void*, int, size_t);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t);
const char* cudaGetErrorName(cudaError_t);
cudaError_t cudaMemcpyToSymbol(const void*, const void*, size_t, size_t = 0, cudaMemcpyKind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void*, const void*, size_t, size_t = 0, cudaMemcpyKind = cudaMemcpyDeviceToHost);

/* library handles: their headers are missing too, and launchers take them as parameters */
typedef struct cublasContext* cublasHandle_t; typedef struct cublasLtContext* cublasLtHandle_t; typedef struct cudnnContext* cudnnHandle_t;
typedef int cufftHandle; typedef struct curandGenerator_st* curandGenerator_t; typedef struct cusparseContext* cusparseHandle_t;
typedef struct ncclComm* ncclComm_t; typedef int cublasStatus_t; typedef int cudnnStatus_t; typedef int ncclResult_t;

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUmod_st* CUmodule;
typedef struct CUfunc_st* CUfunction;
typedef unsigned long long CUdeviceptr;
typedef cudaStream_t CUstream;
CUresult cuInit(unsigned);
CUresult cuDeviceGet(CUdevice*, int);
CUresult cuDeviceGetCount(int*);
CUresult cuDeviceGetAttribute(int*, int, CUdevice);
CUresult cuCtxCreate(CUcontext*, unsigned, CUdevice);
CUresult cuCtxGetCurrent(CUcontext*);
CUresult cuCtxSetCurrent(CUcontext);
CUresult cuCtxSynchronize();
CUresult cuDevicePrimaryCtxRetain(CUcontext*, CUdevice);
CUresult cuModuleLoad(CUmodule*, const char*);
CUresult cuModuleLoadData(CUmodule*, const void*);
CUresult cuModuleGetFunction(CUfunction*, CUmodule, const char*);
CUresult cuModuleUnload(CUmodule);
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**);
CUresult cuMemAlloc(CUdeviceptr*, size_t);
CUresult cuMemFree(CUdeviceptr);
CUresult cuMemcpyHtoD(CUdeviceptr, const void*, size_t);
CUresult cuMemcpyDtoH(void*, CUdeviceptr, size_t);
CUresult cuGetErrorString(CUresult, const char**);
}
template <class T> cudaError_t cudaMalloc(T** p, size_t n) { return cudaMalloc(reinterpret_cast<void**>(p), n); }
template <class T> cudaError_t cudaMallocManaged(T** p, size_t n, unsigned f = 1) { return cudaMallocManaged(reinterpret_cast<void**>(p), n, f); }
template <class T> cudaError_t cudaMallocHost(T** p, size_t n) { return cudaMallocHost(reinterpret_cast<void**>(p), n); }
template <class T> cudaError_t cudaLaunchKernel(T* f, dim3 g, dim3 b, void** a, size_t s = 0, cudaStream_t st = 0) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(f), g, b, a, s, st);
}
template <class T> cudaError_t cudaMemcpyToSymbol(const T& s, const void* src, size_t n, size_t o = 0, cudaMemcpyKind k = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol(reinterpret_cast<const void*>(&s), src, n, o, k);
}

/* ---- PyTorch C++ (the names the rules match; real torch headers are not read) ---- */
namespace c10 {
enum class DeviceType : signed char { CPU, CUDA, MPS, Meta, XPU };
enum class ScalarType : signed char { Byte, Char, Short, Int, Long, Half, Float, Double, Bool, BFloat16, ComplexFloat, ComplexDouble };
enum class DispatchKey : unsigned short {
  CPU, CUDA, MPS, Meta, XPU, QuantizedCPU, QuantizedCUDA, SparseCPU, SparseCUDA, Autograd, AutogradCPU, AutogradCUDA,
  AutogradMPS, AutogradOther, CompositeImplicitAutograd, CompositeExplicitAutograd, CompositeExplicitAutogradNonFunctional,
  Math, DefaultBackend, CatchAll, BackendSelect, Python, Functionalize
};
struct Device {
  Device(DeviceType, int = -1); Device(const char*);
  DeviceType type() const; int index() const; bool is_cuda() const; bool is_cpu() const; bool is_mps() const; bool has_index() const;
};
typedef __half Half;
typedef __nv_bfloat16 BFloat16;
namespace detail {
template <class... A> void torch_check(bool, const A&...);
template <class... A> [[noreturn]] void torch_check_fail(const A&...);
}  // namespace detail
namespace cuda {
struct CUDAStream {
  cudaStream_t stream() const; operator cudaStream_t() const; Device device() const; void synchronize() const; int device_index() const;
};
CUDAStream getCurrentCUDAStream(signed char device = -1);
CUDAStream getDefaultCUDAStream(signed char device = -1);
CUDAStream getStreamFromPool(bool high_priority = false, signed char device = -1);
void setCurrentCUDAStream(CUDAStream);
struct CUDAGuard { explicit CUDAGuard(signed char); explicit CUDAGuard(Device); void set_device(Device); };
struct OptionalCUDAGuard { OptionalCUDAGuard(); template <class T> explicit OptionalCUDAGuard(T); void set_device(Device); };
struct CUDAStreamGuard { explicit CUDAStreamGuard(CUDAStream); };
signed char device_count(); signed char current_device(); void set_device(signed char); void device_synchronize();
void c10_cuda_check_implementation(int, const char*, const char*, int, bool);
}  // namespace cuda
template <class T> struct ArrayRef {
  ArrayRef(); ArrayRef(std::initializer_list<T>); template <class C> ArrayRef(const C&);
  size_t size() const; const T* data() const; T operator[](size_t) const; const T* begin() const; const T* end() const;
};
typedef ArrayRef<long> IntArrayRef;
template <class T> struct optional { optional(); optional(T); bool has_value() const; T value() const; T operator*() const; explicit operator bool() const; };
}  // namespace c10

namespace at {
using c10::Device; using c10::DeviceType; using c10::ScalarType; using c10::IntArrayRef; using c10::Half; using c10::BFloat16;
constexpr DeviceType kCPU = DeviceType::CPU, kCUDA = DeviceType::CUDA, kMPS = DeviceType::MPS;
constexpr ScalarType kFloat = ScalarType::Float, kFloat32 = ScalarType::Float, kDouble = ScalarType::Double, kFloat64 = ScalarType::Double,
  kHalf = ScalarType::Half, kInt = ScalarType::Int, kInt32 = ScalarType::Int, kLong = ScalarType::Long, kInt64 = ScalarType::Long,
  kBool = ScalarType::Bool, kByte = ScalarType::Byte, kBFloat16 = ScalarType::BFloat16;
struct TensorOptions {
  TensorOptions(); TensorOptions(ScalarType); TensorOptions(Device); TensorOptions(DeviceType);
  TensorOptions dtype(ScalarType) const; TensorOptions device(Device) const; TensorOptions device(DeviceType, int = -1) const;
  TensorOptions requires_grad(bool) const; TensorOptions layout(int) const; ScalarType dtype() const; Device device() const;
};
struct DeprecatedTypeProperties { bool is_cuda() const; ScalarType scalarType() const; };
template <class T> struct DefaultPtrTraits {}; template <class T> struct RestrictPtrTraits {};
template <class T, size_t N> struct TensorAccessor { TensorAccessor<T, N - 1> operator[](int64_t) const; int64_t size(int64_t) const; };
template <class T> struct TensorAccessor<T, 1> { T& operator[](int64_t) const; int64_t size(int64_t) const; };
template <class T, size_t N, template <class> class P = DefaultPtrTraits, class I = int64_t>
struct GenericPackedTensorAccessor : TensorAccessor<T, N> {};
template <class T, size_t N, template <class> class P = DefaultPtrTraits> using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, P, int32_t>;
template <class T, size_t N, template <class> class P = DefaultPtrTraits> using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, P, int64_t>;
class Tensor {
 public:
  Tensor();
  bool is_cuda() const; bool is_cpu() const; bool is_mps() const; bool defined() const; bool is_contiguous() const;
  bool requires_grad() const; Device device() const; ScalarType scalar_type() const; DeprecatedTypeProperties type() const;
  TensorOptions options() const; ScalarType dtype() const; int64_t size(int64_t) const; int64_t stride(int64_t) const;
  int64_t dim() const; int64_t ndimension() const; int64_t numel() const; int64_t element_size() const;
  IntArrayRef sizes() const; IntArrayRef strides() const; void* data_ptr() const;
  template <class T> T* data_ptr() const; template <class T> T* data() const; template <class T> T item() const;
  template <class T, size_t N> TensorAccessor<T, N> accessor() const;
  template <class T, size_t N, template <class> class P = DefaultPtrTraits> PackedTensorAccessor32<T, N, P> packed_accessor32() const;
  template <class T, size_t N, template <class> class P = DefaultPtrTraits> PackedTensorAccessor64<T, N, P> packed_accessor64() const;
#define MPSPORT_TENSOR_METHOD(name) template <class... A> Tensor name(A&&...) const;
  MPSPORT_TENSOR_METHOD(contiguous) MPSPORT_TENSOR_METHOD(view) MPSPORT_TENSOR_METHOD(reshape) MPSPORT_TENSOR_METHOD(transpose)
  MPSPORT_TENSOR_METHOD(permute) MPSPORT_TENSOR_METHOD(to) MPSPORT_TENSOR_METHOD(index_select) MPSPORT_TENSOR_METHOD(select)
  MPSPORT_TENSOR_METHOD(narrow) MPSPORT_TENSOR_METHOD(slice) MPSPORT_TENSOR_METHOD(squeeze) MPSPORT_TENSOR_METHOD(unsqueeze)
  MPSPORT_TENSOR_METHOD(expand) MPSPORT_TENSOR_METHOD(expand_as) MPSPORT_TENSOR_METHOD(repeat) MPSPORT_TENSOR_METHOD(clone)
  MPSPORT_TENSOR_METHOD(detach) MPSPORT_TENSOR_METHOD(fill_) MPSPORT_TENSOR_METHOD(zero_) MPSPORT_TENSOR_METHOD(copy_)
  MPSPORT_TENSOR_METHOD(sum) MPSPORT_TENSOR_METHOD(mean) MPSPORT_TENSOR_METHOD(max) MPSPORT_TENSOR_METHOD(min)
  MPSPORT_TENSOR_METHOD(add) MPSPORT_TENSOR_METHOD(sub) MPSPORT_TENSOR_METHOD(mul) MPSPORT_TENSOR_METHOD(div)
  MPSPORT_TENSOR_METHOD(add_) MPSPORT_TENSOR_METHOD(mul_) MPSPORT_TENSOR_METHOD(div_) MPSPORT_TENSOR_METHOD(sub_)
  MPSPORT_TENSOR_METHOD(matmul) MPSPORT_TENSOR_METHOD(mm) MPSPORT_TENSOR_METHOD(bmm) MPSPORT_TENSOR_METHOD(sqrt)
  MPSPORT_TENSOR_METHOD(exp) MPSPORT_TENSOR_METHOD(log) MPSPORT_TENSOR_METHOD(abs) MPSPORT_TENSOR_METHOD(pow)
  MPSPORT_TENSOR_METHOD(cuda) MPSPORT_TENSOR_METHOD(cpu) MPSPORT_TENSOR_METHOD(type_as) MPSPORT_TENSOR_METHOD(new_zeros)
  MPSPORT_TENSOR_METHOD(new_empty) MPSPORT_TENSOR_METHOD(new_full) MPSPORT_TENSOR_METHOD(new_ones) MPSPORT_TENSOR_METHOD(flatten)
  MPSPORT_TENSOR_METHOD(index) MPSPORT_TENSOR_METHOD(index_put_) MPSPORT_TENSOR_METHOD(masked_fill) MPSPORT_TENSOR_METHOD(masked_fill_)
  MPSPORT_TENSOR_METHOD(scatter_) MPSPORT_TENSOR_METHOD(scatter_add_) MPSPORT_TENSOR_METHOD(gather) MPSPORT_TENSOR_METHOD(cumsum)
  MPSPORT_TENSOR_METHOD(nonzero) MPSPORT_TENSOR_METHOD(argmax) MPSPORT_TENSOR_METHOD(argmin) MPSPORT_TENSOR_METHOD(floor)
  MPSPORT_TENSOR_METHOD(half) MPSPORT_TENSOR_METHOD(ceil) MPSPORT_TENSOR_METHOD(round) MPSPORT_TENSOR_METHOD(resize_)
  MPSPORT_TENSOR_METHOD(clamp) MPSPORT_TENSOR_METHOD(clamp_) MPSPORT_TENSOR_METHOD(neg) MPSPORT_TENSOR_METHOD(t)
  MPSPORT_TENSOR_METHOD(chunk) MPSPORT_TENSOR_METHOD(split) MPSPORT_TENSOR_METHOD(softmax) MPSPORT_TENSOR_METHOD(relu)
#undef MPSPORT_TENSOR_METHOD
  template <class T> Tensor operator+(const T&) const; template <class T> Tensor operator-(const T&) const;
  template <class T> Tensor operator*(const T&) const; template <class T> Tensor operator/(const T&) const;
  Tensor operator-() const; template <class T> Tensor operator[](const T&) const;
  template <class... A> Tensor topk(A&&...) const; template <class... A> Tensor sort(A&&...) const;
  template <class T> Tensor operator>(const T&) const; template <class T> Tensor operator<(const T&) const;
  template <class T> Tensor operator>=(const T&) const; template <class T> Tensor operator<=(const T&) const;
  template <class T> Tensor operator==(const T&) const; template <class T> Tensor operator!=(const T&) const;
  template <class T> Tensor operator&(const T&) const; template <class T> Tensor operator|(const T&) const;
  template <class T> Tensor operator^(const T&) const; Tensor operator~() const;
  template <class T> Tensor& operator+=(const T&); template <class T> Tensor& operator-=(const T&);
  template <class T> Tensor& operator*=(const T&); template <class T> Tensor& operator/=(const T&);
};
#define MPSPORT_ATEN_FUNCTION(name) template <class... A> Tensor name(A&&...);
MPSPORT_ATEN_FUNCTION(zeros) MPSPORT_ATEN_FUNCTION(ones) MPSPORT_ATEN_FUNCTION(empty) MPSPORT_ATEN_FUNCTION(full)
MPSPORT_ATEN_FUNCTION(zeros_like) MPSPORT_ATEN_FUNCTION(ones_like) MPSPORT_ATEN_FUNCTION(empty_like) MPSPORT_ATEN_FUNCTION(full_like)
MPSPORT_ATEN_FUNCTION(arange) MPSPORT_ATEN_FUNCTION(cat) MPSPORT_ATEN_FUNCTION(stack) MPSPORT_ATEN_FUNCTION(matmul)
MPSPORT_ATEN_FUNCTION(mm) MPSPORT_ATEN_FUNCTION(bmm) MPSPORT_ATEN_FUNCTION(relu) MPSPORT_ATEN_FUNCTION(sigmoid)
MPSPORT_ATEN_FUNCTION(tanh) MPSPORT_ATEN_FUNCTION(exp) MPSPORT_ATEN_FUNCTION(sqrt) MPSPORT_ATEN_FUNCTION(where)
MPSPORT_ATEN_FUNCTION(sum) MPSPORT_ATEN_FUNCTION(max) MPSPORT_ATEN_FUNCTION(min) MPSPORT_ATEN_FUNCTION(gather)
MPSPORT_ATEN_FUNCTION(softmax) MPSPORT_ATEN_FUNCTION(linear) MPSPORT_ATEN_FUNCTION(conv2d) MPSPORT_ATEN_FUNCTION(clamp)
MPSPORT_ATEN_FUNCTION(randn) MPSPORT_ATEN_FUNCTION(rand) MPSPORT_ATEN_FUNCTION(tensor) MPSPORT_ATEN_FUNCTION(from_blob)
MPSPORT_ATEN_FUNCTION(cdist) MPSPORT_ATEN_FUNCTION(randint) MPSPORT_ATEN_FUNCTION(floor) MPSPORT_ATEN_FUNCTION(abs)
#undef MPSPORT_ATEN_FUNCTION
// Factory functions called with a braced size list, which a variadic template cannot deduce.
Tensor zeros(IntArrayRef, TensorOptions = {}); Tensor ones(IntArrayRef, TensorOptions = {}); Tensor empty(IntArrayRef, TensorOptions = {});
Tensor randn(IntArrayRef, TensorOptions = {}); Tensor rand(IntArrayRef, TensorOptions = {}); Tensor full(IntArrayRef, double, TensorOptions = {});
Tensor operator*(double, const Tensor&); Tensor operator+(double, const Tensor&);
Tensor operator-(double, const Tensor&); Tensor operator/(double, const Tensor&);
namespace cuda {
using c10::cuda::CUDAStream; using c10::cuda::getCurrentCUDAStream; using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool; using c10::cuda::CUDAGuard; using c10::cuda::OptionalCUDAGuard; using c10::cuda::CUDAStreamGuard;
using c10::cuda::current_device; using c10::cuda::device_count; using c10::cuda::set_device;
cudaDeviceProp* getCurrentDeviceProperties();
cudaDeviceProp* getDeviceProperties(signed char);
struct cublasContext* getCurrentCUDABlasHandle();
struct cusparseContext* getCurrentCUDASparseHandle();
struct CUDAEvent { CUDAEvent(); explicit CUDAEvent(unsigned); void record(); void record(const CUDAStream&); void block(const CUDAStream&); void synchronize() const; };
}  // namespace cuda
}  // namespace at

namespace torch {
using namespace at;
using at::Tensor;
namespace autograd { template <class T> struct Function {}; struct AutogradContext { template <class... A> void save_for_backward(A&&...); }; }
template <class F> F dispatch(c10::DispatchKey, F&& f);
template <class F> F dispatch(c10::DeviceType, F&& f);
class Library {
 public:
  template <class... A> Library& def(A&&...) { return *this; }
  template <class... A> Library& impl(A&&...) { return *this; }
  template <class... A> Library& fallback(A&&...);
};
}  // namespace torch

namespace pybind11 {
struct handle {}; struct object : handle {}; struct none : object {}; struct tuple : object {};
struct arg { arg(const char*); template <class T> arg& operator=(T&&); arg& noconvert(bool = true); };
struct module_ {
  template <class F, class... E> module_& def(const char*, F&&, const E&...) { return *this; }
  module_ def_submodule(const char*, const char* = nullptr);
  template <class... A> module_& attr(A&&...);
};
typedef module_ module;
template <class T, class... O> struct class_ {
  template <class... A> class_(A&&...);
  template <class... A> class_& def(A&&...); template <class... A> class_& def_static(A&&...);
  template <class... A> class_& def_readwrite(A&&...); template <class... A> class_& def_readonly(A&&...);
  template <class... A> class_& def_property(A&&...); template <class... A> class_& def_property_readonly(A&&...);
};
template <class... A> struct init_t {}; template <class... A> init_t<A...> init();
enum class return_value_policy { automatic, take_ownership, copy, move, reference, reference_internal };
struct call_guard_base {}; template <class... T> struct call_guard : call_guard_base {}; struct gil_scoped_release { gil_scoped_release(); };
namespace literals { arg operator""_a(const char*, size_t); }
}  // namespace pybind11
namespace py = pybind11;

#define MPSPORT_CAT2(a, b) a##b
#define MPSPORT_CAT(a, b) MPSPORT_CAT2(a, b)
#define PYBIND11_MODULE(name, variable) \
  __attribute__((annotate("mpsport:pybind11:" #name))) static void MPSPORT_CAT(mpsport_pybind11_module_, __COUNTER__)(::pybind11::module_& variable)
#define TORCH_LIBRARY(ns, m) \
  __attribute__((annotate("mpsport:library:" #ns))) static void MPSPORT_CAT(mpsport_torch_library_, __COUNTER__)(::torch::Library& m)
#define TORCH_LIBRARY_FRAGMENT(ns, m) TORCH_LIBRARY(ns, m)
#define TORCH_LIBRARY_IMPL(ns, k, m) \
  __attribute__((annotate("mpsport:library_impl:" #ns ":" #k))) static void MPSPORT_CAT(mpsport_torch_library_impl_, __COUNTER__)(::torch::Library& m)
#define TORCH_FN(f) (&f)
#define TORCH_SELECTIVE_NAME(n) n
#define TORCH_SELECTIVE_SCHEMA(s) s
#define TORCH_CHECK(cond, ...) ::c10::detail::torch_check(static_cast<bool>(cond), ##__VA_ARGS__)
#define TORCH_INTERNAL_ASSERT(cond, ...) ::c10::detail::torch_check(static_cast<bool>(cond), ##__VA_ARGS__)
#define AT_ASSERTM(cond, ...) ::c10::detail::torch_check(static_cast<bool>(cond), ##__VA_ARGS__)
#define AT_ASSERT(cond, ...) ::c10::detail::torch_check(static_cast<bool>(cond), ##__VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) ::c10::detail::torch_check((a) == (b))
#define AT_ERROR(...) ::c10::detail::torch_check_fail(__VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) ::c10::detail::torch_check(static_cast<bool>(cond), ##__VA_ARGS__)
#define C10_CUDA_CHECK(e) ::c10::cuda::c10_cuda_check_implementation(static_cast<int>(e), __FILE__, __func__, __LINE__, true)
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define AT_CUDA_CHECK(e) C10_CUDA_CHECK(e)
#define TORCH_EXTENSION_NAME torch_extension
// AT_DISPATCH_*: the kernel lambda runs with scalar_t bound, and a call of a marker function of the
// macro's own name (declared before the macro, so that name is not expanded again) lets rules match
// the dispatch and name it. The dtype arguments of the _AND variants are dropped: the shim has no
// ScalarType enumerators, and an undeclared one must not spoil the kernel's body.
void AT_DISPATCH_FLOATING_TYPES(const char*);
void AT_DISPATCH_FLOATING_TYPES_AND_HALF(const char*);
void AT_DISPATCH_FLOATING_TYPES_AND(const char*);
void AT_DISPATCH_FLOATING_TYPES_AND2(const char*);
void AT_DISPATCH_FLOATING_TYPES_AND3(const char*);
void AT_DISPATCH_ALL_TYPES(const char*);
void AT_DISPATCH_ALL_TYPES_AND(const char*);
void AT_DISPATCH_ALL_TYPES_AND2(const char*);
void AT_DISPATCH_ALL_TYPES_AND3(const char*);
void AT_DISPATCH_ALL_TYPES_AND_COMPLEX(const char*);
void AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(const char*);
void AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(const char*);
void AT_DISPATCH_INTEGRAL_TYPES(const char*);
void AT_DISPATCH_INTEGRAL_TYPES_AND(const char*);
void AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(const char*);
void AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND(const char*);
void AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(const char*);
void AT_DISPATCH_REDUCED_FLOATING_TYPES(const char*);
void AT_DISPATCH_COMPLEX_TYPES(const char*);
#define MPSPORT_DISPATCH(MACRO, TYPE, NAME, ...) [&] { MACRO(NAME); using scalar_t = float; (void)(TYPE); return __VA_ARGS__(); }()
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_TYPES, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_TYPES_AND_HALF, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(A, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_TYPES_AND, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(A, B, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_TYPES_AND2, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND3(A, B, C, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_TYPES_AND3, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(A, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES_AND, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(A, B, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES_AND2, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND3(A, B, C, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES_AND3, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES_AND_COMPLEX, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(A, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(A, B, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_INTEGRAL_TYPES, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES_AND(A, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_INTEGRAL_TYPES_AND, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND(A, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(A, B, TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_REDUCED_FLOATING_TYPES, TYPE, NAME, __VA_ARGS__)
#define AT_DISPATCH_COMPLEX_TYPES(TYPE, NAME, ...) MPSPORT_DISPATCH(AT_DISPATCH_COMPLEX_TYPES, TYPE, NAME, __VA_ARGS__)
)shim";
}

}  // namespace mpsport::cuda
