// ndp_dev_pkg: constants of the device address map and control block (docs/spec.md section 7).
package ndp_dev_pkg;
  // Host addresses: A[47:40] window, A[39:0] offset.
  localparam logic [7:0]  WinCtrl  = 8'h00;
  localparam logic [7:0]  WinStore = 8'h01;
  localparam int unsigned DescBase = 32'h10000;   // descriptor t at DescBase + 64 t
  localparam int unsigned CsrBytes = 32'h1000;    // registers below this offset
  localparam int unsigned BaseShift = 21;         // tensor bases are 2 MiB aligned

  // AXI response codes (RRESP/BRESP).
  typedef enum logic [1:0] {
    RespOkay   = 2'd0,
    RespExOkay = 2'd1,
    RespSlvErr = 2'd2,
    RespDecErr = 2'd3
  } resp_e;

  // Error codes of ERR_CODE (section 7.5).
  localparam logic [7:0] ErrProtocol     = 8'd1;
  localparam logic [7:0] ErrIndex        = 8'd2;
  localparam logic [7:0] ErrDescRejected = 8'd3;
  localparam logic [7:0] ErrBlockSpan    = 8'd4;
  localparam logic [7:0] ErrLaneBase     = 8'd16;

  // The bursts the host port serves (spec 7.5, 7.6): INCR, full 64-byte beats, not across a 4 KiB
  // boundary. Anything else is a Protocol error (SLVERR).
  function automatic logic axi_burst_ok(input logic [11:6] addr, input logic [7:0] len,
                                        input logic [2:0] size, input logic [1:0] burst);
    axi_burst_ok = burst == 2'd1 && size == 3'd6 && 9'(addr) + 9'(len) <= 9'd63;
  endfunction

  // Register numbers (offset / 8) of section 7.4.
  localparam int unsigned RegId         = 0;
  localparam int unsigned RegCaps       = 1;
  localparam int unsigned RegCtrl       = 2;
  localparam int unsigned RegTensorCnt  = 3;
  localparam int unsigned RegStatus     = 4;
  localparam int unsigned RegCaps2      = 5;
  localparam int unsigned RegPrefetch   = 6;
  localparam int unsigned RegTrack      = 7;
  localparam int unsigned RegErrCode    = 8;
  localparam int unsigned RegErrChunk   = 9;
  localparam int unsigned RegErrAddr    = 10;
  localparam int unsigned RegErrCount   = 11;
  localparam int unsigned RegCntBase    = 16;   // CNT_CYCLES .. CNT_BLOCKS: 16 .. 25
  localparam int unsigned NumCnt        = 10;

  // Counter numbers (RegCntBase + i).
  localparam int unsigned CntCycles    = 0;
  localparam int unsigned CntHostRd    = 1;
  localparam int unsigned CntHostWr    = 2;
  localparam int unsigned CntDecErr    = 3;
  localparam int unsigned CntSlvErr    = 4;
  localparam int unsigned CntDramRd    = 5;
  localparam int unsigned CntDramWr    = 6;
  localparam int unsigned CntChunks    = 7;
  localparam int unsigned CntChunkHits = 8;
  localparam int unsigned CntBlocks    = 9;

  // A logged error (the first since the last clear is kept).
  typedef struct packed {
    logic [7:0]  code;
    logic [7:0]  plane;
    logic [15:0] slot;
    logic [31:0] tensor;
    logic [63:0] chunk;
    logic [63:0] addr;
  } err_t;

  // The fields of a tensor descriptor the datapath uses (the 64-byte line of section 7.3).
  typedef struct packed {
    logic [18:0] base;        // B_t >> 21
    logic [39:0] elems;
    logic [39:0] image;       // DRAM byte addresses (DRAM is at most 1 TiB)
    logic [39:0] index;
    logic [39:0] data_end;
    logic [31:0] chunk_elems;
    logic [7:0]  dtype;
    logic [7:0]  layout;
    logic [7:0]  slots;
    logic [7:0]  flags;
  } desc_t;


  // A region job: which chunk of which tensor to decode into which chunk buffer.
  typedef struct packed {
    logic [3:0]   fmt;        // bp_pkg::fmt_e (kept as bits: Yosys 0.23 resolves no typedef of another package here)
    logic [3:0]   k;          // K of eEmK
    logic [1:0]   guard;
    logic         expbyte;    // layout 1
    logic [31:0]  tensor;
    logic [39:0]  chunk;
    logic         last;       // the tensor's last chunk (its last block ends at data_end)
    logic [31:0]  n;          // elements of the chunk
    logic [7:0]   slots;
    logic [39:0]  image;
    logic [39:0]  index;
    logic [39:0]  data_end;
    logic         prefetch;   // a prefetch (spec 7.6): a failure is not logged
  } job_t;
  localparam int unsigned JobBits = 245;   // $bits(job_t) (Yosys 0.23 takes no $bits of a package type)

  // Region geometry of a BF16 source (the RTL's source type): format number f (section 7.1) to
  // the assembler's format and K, and whether a bf16 tensor exposes it.
  function automatic logic fmt_exposed(input logic [4:0] f);
    fmt_exposed = (f <= 5'd8) || (f >= 5'd16 && f <= 5'd22);
  endfunction
  // Assembler formats (the encoding of bp_pkg::fmt_e).
  localparam logic [3:0] FmtFull = 4'd0, FmtEmK = 4'd1, FmtE4M3 = 4'd2, FmtE5M2 = 4'd3, FmtE3M2 = 4'd4,
                         FmtE2M3 = 4'd5, FmtE2M1 = 4'd6, FmtMxfp8 = 4'd7, FmtMxfp4 = 4'd8;
  function automatic logic [3:0] fmt_of(input logic [4:0] f);
    logic [3:0] r;
    r = FmtFull;
    if (f >= 5'd1 && f <= 5'd8) r = FmtEmK;
    else if (f >= 5'd16 && f <= 5'd22) r = 4'(f - 5'd14);
    fmt_of = r;
  endfunction

  // region_output_bytes(r, bf16, n) of spec 5.1 (shift-adds only) for the four format classes that
  // add, {mxfp4, mxfp8, e2m1, e3m2/e2m3}: a reader that knows n before the format registers these
  // and picks with region_bytes_sel below (full/eEmK is n << 1 and e4m3/e5m2 is n, plain wiring).
  function automatic logic [4*43-1:0] region_bytes_cls(input logic [39:0] n);
    logic [42:0] g;
    logic [4:0]  rest, half;
    g    = 43'(n) >> 5;
    rest = n[4:0];
    half = 5'((6'(rest) + 6'd1) >> 1);
    region_bytes_cls = {(g << 4) + g + ((rest != 0) ? 43'(half) + 43'd1 : 43'd0),   // mxfp4
                        (g << 5) + g + ((rest != 0) ? 43'(rest) + 43'd1 : 43'd0),   // mxfp8
                        (43'(n) + 43'd1) >> 1,                                      // e2m1
                        (43'(n) + (43'(n) << 1) + 43'd3) >> 2};                     // e3m2, e2m3
  endfunction
  function automatic logic [42:0] region_bytes_sel(input logic [3:0] fmt, input logic [39:0] n,
                                                   input logic [4*43-1:0] cls);
    logic [42:0] r;
    unique case (fmt)
      FmtFull, FmtEmK: r = 43'(n) << 1;
      FmtE4M3, FmtE5M2: r = 43'(n);
      FmtE3M2, FmtE2M3: r = cls[0 +: 43];
      FmtE2M1: r = cls[43 +: 43];
      FmtMxfp8: r = cls[86 +: 43];
      FmtMxfp4: r = cls[129 +: 43];
      default: r = '0;
    endcase
    region_bytes_sel = r;
  endfunction
  function automatic logic [42:0] region_bytes(input logic [3:0] fmt, input logic [39:0] n);
    region_bytes = region_bytes_sel(fmt, n, region_bytes_cls(n));
  endfunction
  // Slots a region fetches (bf16): sign, exponent (8 bit-planes or the EXPBYTE plane), and the top
  // t = min(7, m + g) mantissa planes, m the mantissa bits the format keeps.
  function automatic logic [15:0] need_mask(input logic [3:0] fmt, input logic [3:0] k, input logic [1:0] guard,
                                            input logic expbyte);
    logic [3:0]  m_kept, t_fetch, r;
    logic [15:0] need;
    unique case (fmt)
      FmtFull:  m_kept = 4'd7;
      FmtEmK:   m_kept = k;
      FmtE4M3, FmtE2M3, FmtMxfp8: m_kept = 4'd3;
      FmtE5M2, FmtE3M2: m_kept = 4'd2;
      default:  m_kept = 4'd1;
    endcase
    t_fetch = (m_kept + 4'(guard) > 4'd7) ? 4'd7 : m_kept + 4'(guard);
    need = '0;
    for (int unsigned s = 0; s < 16; s++) begin
      // mantissa rank of slot s (0 = MSB): expbyte slots 2.., bitplane slots 9..
      r = expbyte ? 4'(s - 2) : 4'(s - 9);
      if (expbyte) need[s] = (s < 2) || (s < 9 && r < t_fetch);
      else         need[s] = (s < 9) || r < t_fetch;
    end
    need_mask = need;
  endfunction

  // Plane id of slot s (bf16): expbyte sign 15, EXPBYTE, mantissa 6..0; bitplane 15 - s.
  localparam logic [7:0] PlaneExpByte = 8'h40;   // bp_pkg::PlaneExpByte (the spec's plane id 0x40)
  function automatic logic [7:0] plane_of(input logic expbyte, input logic [3:0] s);
    if (expbyte) plane_of = (s == 4'd0) ? 8'd15 : (s == 4'd1) ? PlaneExpByte : {4'd0, 4'd8 - s};
    else plane_of = {4'd0, 4'd15 - s};
  endfunction
endpackage
