// The device address map and control interface of docs/spec.md section 7 in code: windows, format
// numbers, region windows, element addresses, the 64-byte tensor descriptor, the control registers,
// response and error codes, the driver's base rule (plan_map), the host port abstraction and the
// driver steps over it (csr_read / csr_write / load_image). Shared by the device model (DeviceModel),
// the RTL bench of rtl/device (which implements HostPort over AXI) and the host driver.
// docs/device-model.md describes the API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ndp/block.h"
#include "ndp/dtype.h"
#include "ndp/image.h"
#include "ndp/precision.h"
#include "ndp/status.h"

namespace ndp::dev {

// ---- Address layout (7.1) ------------------------------------------------------------------------
constexpr unsigned kWindowShift = 40;                          // A[47:40] window, A[39:0] offset
constexpr uint64_t kOffsetMask = (uint64_t{1} << kWindowShift) - 1;
constexpr unsigned kAddressBits = 48;                          // bits 63..48 of an address: DECERR
constexpr uint8_t kWindowControl = 0x00;
constexpr uint8_t kWindowStore = 0x01;
constexpr uint8_t kWindowKv = 0x40;                            // KV pages (7.7) when MaxKvPages > 0
constexpr uint8_t kWindowKvFirst = 0x40, kWindowKvLast = 0x7F;  // 0x41..0x7F reserved: DECERR
constexpr uint8_t kWindowRegionBase = 0x80;                     // 0x80 + 32 g + f
constexpr uint8_t kFormatFull = 0, kFormatEmK = 1, kFormatFp8E4M3 = 16, kFormatFp8E5M2 = 17,
                  kFormatFp6E3M2 = 18, kFormatFp6E2M3 = 19, kFormatFp4E2M1 = 20, kFormatMxfp8 = 21,
                  kFormatMxfp4 = 22;
constexpr uint64_t kBeatBytes = 64;          // one data beat / DRAM line
constexpr unsigned kMaxBurstBeats = 64;      // INCR bursts stay inside 4 KiB
constexpr uint64_t kBurstBoundary = 4096;
constexpr uint64_t kTensorAlign = uint64_t{1} << 21;  // 2 MiB: bases B_t
constexpr uint64_t kCsrSpace = 0x1000;                // registers at O < 0x1000
constexpr uint64_t kDescTableBase = 0x10000;          // descriptor t at 0x10000 + 64 t
constexpr uint64_t kDescBytes = 64;

// ---- Control registers (7.4): offsets in window 0 -------------------------------------------------
constexpr uint64_t kCsrId = 0x000, kCsrCaps = 0x008, kCsrCtrl = 0x010, kCsrTensorCount = 0x018,
                   kCsrStatus = 0x020, kCsrCaps2 = 0x028, kCsrPrefetch = 0x030, kCsrTrack = 0x038, kCsrErrCode = 0x040, kCsrErrChunk = 0x048, kCsrErrAddr = 0x050,
                   kCsrErrCount = 0x058, kCsrCntCycles = 0x080, kCsrCntHostRdBeats = 0x088,
                   kCsrCntHostWrBeats = 0x090, kCsrCntDecErr = 0x098, kCsrCntSlvErr = 0x0A0,
                   kCsrCntDramRdBytes = 0x0A8, kCsrCntDramWrBytes = 0x0B0, kCsrCntChunks = 0x0B8,
                   kCsrCntChunkHits = 0x0C0, kCsrCntBlocks = 0x0C8, kCsrKvCaps = 0x060, kCsrKvSeal = 0x068,
                   kCsrCntKvSeals = 0x0D0, kCsrCntKvStoredBytes = 0x0D8;
constexpr uint32_t kIdMagic = 0x4450444E;  // "NDPD"
constexpr uint32_t kSpecVersion = 1;
constexpr uint64_t kCtrlEnable = 1, kCtrlClearCounters = 2, kCtrlClearErrLog = 4, kCtrlFlush = 8;
constexpr uint64_t kStatusBusy = 1, kStatusError = 2, kStatusDecoding = 4;
constexpr uint32_t kErrTensorNone = 0xFFFFFFFF;  // ERR_CODE tensor field of a protocol error

// AXI RRESP / BRESP encoding.
enum class Resp : uint8_t { kOkay = 0, kExOkay = 1, kSlvErr = 2, kDecErr = 3 };
// AXI AxBURST encoding.
enum class BurstType : uint8_t { kFixed = 0, kIncr = 1, kWrap = 2 };

// ---- Error codes (7.5), ERR_CODE bits 7..0 ------------------------------------------------------
constexpr uint8_t kErrNone = 0, kErrProtocol = 1, kErrIndex = 2, kErrDescRejected = 3,
                  kErrBlockSpan = 4,  // the block header's 12 + comp_size differs from its index span
                  kErrExpRange = 5,   // an EXPBYTE value exceeds the dtype's exponent field
                  kErrKvPageRejected = 6,  // a KV page descriptor failed its checks (7.7)
                  kErrKvWrite = 7,    // a KV write or seal the page cannot take
                  kErrKvFree = 8,     // a KV access to a free page
                  kErrLaneBase = 16;  // 16 + lane status

// Codec lane statuses: a mirror of rtl/lane/lane_pkg.sv status_e (keep the two in step).
enum class LaneStatus : uint8_t {
  kOk = 0, kHdrTrunc = 1, kCodecUnknown = 2, kFlagsReserved = 3, kPlaneUndef = 4, kSizeRule = 5,
  kPlaneMismatch = 6, kBlockMismatch = 7, kRawMismatch = 8, kPayloadTrunc = 9, kUnsupported = 10,
  kChecksum = 11, kPadding = 12,
  kLz4Base = 16,   // + lz4_pkg::err_e (1..8)
  kZstdBase = 32,  // + zstd_lane_dec code (1..18)
};
// The lane status of a golden block-decoder failure. Payload failures give the bare kLz4Base /
// kZstdBase: the golden decoders (liblz4, libzstd) do not say which engine rule broke.
LaneStatus lane_status(BlockFault f);
// ERR_CODE code of a lane status: 16 + s.
inline uint8_t lane_error_code(LaneStatus s) { return static_cast<uint8_t>(kErrLaneBase + static_cast<uint8_t>(s)); }
// True when an RTL error code agrees with the model's: equal, or the model's is a bare payload code
// (16 + kLz4Base / 16 + kZstdBase) and the RTL's is any code of that engine.
bool err_code_matches(uint8_t rtl, uint8_t model);

// ---- Windows and addresses ---------------------------------------------------------------------
inline uint64_t window_address(uint8_t window, uint64_t offset) {
  return (uint64_t{window} << kWindowShift) | (offset & kOffsetMask);
}
inline uint8_t window_of(uint64_t addr) { return static_cast<uint8_t>(addr >> kWindowShift); }
inline uint64_t offset_of(uint64_t addr) { return addr & kOffsetMask; }

// Format number f of region r for a source type (7.1 table). Error if src does not expose r.
Result<uint8_t> format_number(const Region& r, DType src);
// Region window 0x80 + 32 g + f. Contract: f < 32, g in 0..2.
uint8_t region_window(uint8_t f, int g);
// True for the windows of the region table that exist for some source (g 0..2, f 0..11 or 16..22).
bool region_window_defined(uint8_t window);
// The region a region window reads for a tensor of type src; error (a DECERR case of 7.2) for a
// window that is not a region window, a reserved f, or a region src does not expose. `full` comes
// back with guard 0 whatever g is.
Result<Region> decode_region_window(uint8_t window, DType src);

// Position of element i inside a tensor's region bytes (7.2 table): byte offset from B_t and the bit
// of that byte where the element's code starts (nonzero for int4 `full`, FP6, FP4 and MXFP4).
struct ElementPos {
  uint64_t byte = 0;
  unsigned bit = 0;
};
// Error if src does not expose r.
Result<ElementPos> element_offset(const Region& r, DType src, uint64_t i);
// Host address of element i of the tensor at base B in region r with g = r.guard: the region
// window's address of B + element_offset(...).byte (*bit, if given, receives the bit).
Result<uint64_t> element_address(const Region& r, DType src, uint64_t base, uint64_t i, unsigned* bit = nullptr);

// ---- Tensor descriptors (7.3) ------------------------------------------------------------------
constexpr uint8_t kDescValid = 1;
struct Descriptor {
  uint64_t base = 0;      // B_t, 2 MiB aligned
  uint64_t elems = 0;     // N_t >= 1
  uint64_t image = 0;     // DRAM address of the image's file header
  uint64_t index = 0;     // DRAM address of the tensor's plane index
  uint64_t data_end = 0;  // DRAM address one past the tensor's stored chunk data
  uint32_t chunk_elems = 0;
  uint8_t dtype = 0;      // section 1 code
  uint8_t layout = 0;     // 0 bitplane, 1 expbyte
  uint8_t slots = 0;      // plane slots per chunk P
  uint8_t flags = 0;      // kDescValid
  // 64 bytes, reserved bytes 48..63 zero.
  void encode(uint8_t out[64]) const;
  static Descriptor decode(const uint8_t in[64]);
  bool operator==(const Descriptor&) const = default;
};

// S_t of 7.2: the largest region_output_bytes of the tensor over every region its dtype exposes and
// every guard count, at least 1.
uint64_t tensor_span(const TensorInfo& t);

// The driver's mapping of an image: descriptor t maps image tensor image_tensor[t].
struct MapPlan {
  std::vector<Descriptor> desc;
  std::vector<size_t> image_tensor;
};
// The base rule of 7.2 for an image stored at DRAM address image_base (64-byte aligned): weight
// tensors with N >= 1 in table order, B_0 = 0, B_(t+1) = align_up(B_t + S_t, 2 MiB). Errors: an
// unaligned image base, bases that leave the 40-bit window offset.
Result<MapPlan> plan_map(const ImageReader& img, uint64_t image_base);

// ---- KV pages (7.7) ------------------------------------------------------------------------------
constexpr uint64_t kKvPageTableBase = 0x800000;  // page descriptor p at 0x800000 + 64 p (control window)
constexpr uint64_t kKvPageHeaderBytes = 64;
constexpr uint32_t kKvPageMagic = 0x50564B4E;    // "NKVP"
constexpr uint32_t kKvWidthAlign = 32;           // N: a multiple of 32 elements (whole 64-byte lines)
constexpr uint8_t kKvFlagValid = 1, kKvFlagRestore = 2;
enum class KvPageState : uint8_t { kFree = 0, kOpen = 1, kSealed = 2 };
// KvPageRejected reasons (ERR_CODE plane field).
constexpr uint8_t kKvRejectGeometry = 1, kKvRejectSlot = 2, kKvRejectNoBuffer = 3, kKvRejectRestore = 4;

// KV_CAPS (0 when the device has no KV write path).
struct KvCaps {
  uint32_t max_pages = 0;          // MaxKvPages
  uint32_t buffers = 0;            // B window buffers
  uint32_t buffer_elems_log2 = 0;  // KvBufferElems = 2^this
  uint8_t dtype_mask = 0;          // bit = dtype code
  uint32_t span_log2 = 0;          // page span 2^S bytes of the KV window
  uint64_t encode() const;
  static KvCaps decode(uint64_t v);
};

// Bytes 0..31 of a page descriptor (host-written) and its read-only state (bytes 32..43).
struct KvPageDesc {
  uint64_t slot = 0;
  uint32_t slot_bytes = 0;
  uint32_t window = 0;  // W
  uint32_t width = 0;   // N = H x C
  uint8_t dtype = 0;
  uint8_t layout = 1;   // 0 bitplane, 1 expbyte
  uint8_t policy = 0;   // CodecPolicy
  uint8_t flags = 0;    // kKvFlagValid | kKvFlagRestore
  // state fields (read back only)
  KvPageState state = KvPageState::kFree;
  uint32_t tokens = 0;
  uint32_t stored_bytes = 0;
  void encode(uint8_t out[64]) const;  // bytes 0..31, then the state fields
  static KvPageDesc decode(const uint8_t in[64]);
};

// The 64-byte page header at the start of a sealed page's slot; the blocks follow back to back.
struct KvPageHeader {
  uint32_t tokens = 0, window = 0, width = 0;
  uint8_t dtype = 0, layout = 0, blocks = 0;  // blocks: P, KVBASE included
  uint32_t stored_bytes = 0;                  // header + blocks
  void encode(uint8_t out[kKvPageHeaderBytes]) const;
  // Error unless the magic and the XXH32 check out.
  static Result<KvPageHeader> decode(const uint8_t in[kKvPageHeaderBytes]);
};
// Walk the P blocks of a sealed page's stored bytes (bytes 64.. of the slot, `n` of them): each
// block is 12 + its comp_size bytes and the last ends exactly at n. Fills each block's offset from
// the slot start plus the end; false if the walk leaves the bytes or does not end at n.
bool kv_walk_blocks(const uint8_t* blocks, uint64_t n, size_t P, std::vector<uint64_t>& offsets);

// Block slots of a page: KVBASE, then plane_order(dtype, layout).
std::vector<uint8_t> kv_page_planes(DType t, Layout l);
// Raw bytes of block s of a window of w tokens x N elements.
uint64_t kv_block_raw_bytes(uint8_t plane_id, uint64_t w, uint32_t width);
// The slot size of a geometry (7.7): align_up(64 + sum over blocks of (12 + raw at w = W), 64).
uint64_t kv_slot_bytes(DType t, Layout l, uint32_t window, uint32_t width);
// KV window address of line `line` of token t of page p (span 2^span_log2 bytes per page).
inline uint64_t kv_address(uint64_t page, uint32_t span_log2, uint64_t byte) {
  return window_address(kWindowKv, (page << span_log2) + byte);
}

// ---- Host port and driver steps ----------------------------------------------------------------
// A host's view of the device: 64-byte beat reads and writes. Implementations (DeviceModel, the
// RTL bench's AXI master) split a request into INCR bursts of full-width beats of at most
// kMaxBurstBeats that do not cross a 4 KiB boundary.
class HostPort {
 public:
  virtual ~HostPort() = default;
  // Write bytes (a nonzero multiple of 64) at addr (64-byte aligned). strobes: one 64-bit byte
  // mask per beat (bit j = byte j of the beat), nullptr = all bytes. Error if the arguments break
  // that contract or any burst's BRESP is not OKAY (the message names the burst address and the
  // response); beats of other bursts are still written.
  virtual Status write(uint64_t addr, const uint8_t* data, size_t bytes, const uint64_t* strobes = nullptr) = 0;
  // Read bytes (a nonzero multiple of 64) at addr (64-byte aligned) into out. beat_resp: when given,
  // resized to one RRESP per beat and the call succeeds whatever the responses (failed beats read
  // zero); when nullptr, the first non-OKAY beat is an error naming its address and response.
  virtual Status read(uint64_t addr, size_t bytes, uint8_t* out, std::vector<Resp>* beat_resp) = 0;
};

const char* resp_name(Resp r);
// The strobe-checked 64-bit register at control-window offset `offset` (8-byte aligned, < 0x1000):
// a one-beat read of its line / a one-beat write with only its 8 byte strobes set.
Result<uint64_t> csr_read(HostPort& port, uint64_t offset);
Status csr_write(HostPort& port, uint64_t offset, uint64_t value);
// Write descriptor t (one beat at 0x10000 + 64 t).
Status write_descriptor(HostPort& port, uint32_t t, const Descriptor& d);
// Write page descriptor p (bytes 0..31 of d: one beat at 0x800000 + 64 p; opens, restores or frees
// the page, 7.7) / read it back with the page's state fields.
Status kv_page_write(HostPort& port, uint32_t p, const KvPageDesc& d);
Result<KvPageDesc> kv_page_read(HostPort& port, uint32_t p);
// Write `bytes` bytes at DRAM address dram_addr through the store window (any length and alignment:
// partial first/last lines are written with byte strobes).
Status store_write(HostPort& port, uint64_t dram_addr, const uint8_t* data, size_t bytes);
// The driver's load sequence: parse the image, plan_map at image_base, write the image through the
// store window, the descriptors, TENSOR_COUNT, then CTRL.ENABLE; error if the device rejects a
// descriptor (STATUS bits 63..32) or any step fails. *plan_out (if given) receives the plan.
Status load_image(HostPort& port, const std::vector<uint8_t>& image, uint64_t image_base, MapPlan* plan_out);

}  // namespace ndp::dev
