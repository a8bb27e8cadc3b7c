// codec_lane_dec: decode direction of the codec lane. Takes one stored plane block per packet
// (12-byte header + payload, docs/spec.md section 3; bytes after 12 + comp_size are dropped),
// checks the header in the golden decoder's order against what the index expects, decodes the
// payload (RAW pass-through, CONST fill, LZ4 through lz4_decoder, ZSTD through zstd_lane_dec when
// HasZstd, else reported unsupported), computes XXH32 of the decoded bytes and ends every block
// with one status beat.
//
/// Output: the decoded bytes in beats of 1..Bytes bytes (out_last_o low), then the status beat
/// (out_cnt_o 0, out_last_o high, out_err_o and out_code_o = lane_pkg::status_e). A block's data is
/// valid only when its status beat reports StOk; a header error sends the status beat alone.
/// Registers: the input byte queue, the header fields, the state machine, an output spill_reg, the
/// engine feed spill_reg (shared by both engines: LZ4 takes up to Bytes per beat, ZSTD up to 8) and
/// the XXH32 unit; the engines have their own pipelines. ZSTD rows are 1..8 bytes wide, so a ZSTD
/// block leaves the lane at up to 8 bytes per cycle (the engine's output rate).
`include "ndp_assert.svh"

module codec_lane_dec #(
  parameter int unsigned Bytes         = 32,     // input and output beat width
  parameter int unsigned MatchSlots    = 4,
  parameter int unsigned Seqs          = 4,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter bit          HasZstd       = 1'b1,   // a ZSTD engine (zstd_lane_dec) in this lane
  parameter int unsigned ZstdHistBytes = 65536,  // its history limit (>= MaxBlockBytes)
  localparam int unsigned CW = $clog2(Bytes + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // stored blocks, one per packet; the expectations are held for the whole packet
  input  logic                 in_valid_i,
  output logic                 in_ready_o,
  input  logic [Bytes*8-1:0]   in_data_i,
  input  logic [CW-1:0]        in_cnt_i,
  input  logic                 in_last_i,
  input  logic [15:0]          in_exp_block_id_i,
  input  logic [7:0]           in_exp_plane_id_i,
  input  logic [16:0]          in_exp_raw_size_i,   // 1..65536
  input  logic [7:0]           in_pad_mask_i,       // bits of the last byte that must be zero
  // decoded bytes, then one status beat per block
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [Bytes*8-1:0]   out_data_o,
  output logic [CW-1:0]        out_cnt_o,
  output logic                 out_last_o,
  output logic                 out_err_o,
  output lane_pkg::status_e    out_code_o
);
  localparam int unsigned QD  = 3 * Bytes;
  localparam int unsigned QCW = $clog2(QD + 1);
  localparam int unsigned OW  = Bytes * 8 + CW + 1 + 1 + 6;  // output beat record
  localparam int unsigned FW  = Bytes * 8 + CW + 1;          // engine feed beat record

  // ---------------------------------------------------------------------------------------------
  // Packet framing and the input byte queue
  logic            open_q, eop_q, in_hs, done_pkt;
  logic [15:0]     exp_id_q;
  logic [7:0]      exp_plane_q, pad_q;
  logic [16:0]     exp_raw_q;
  logic [Bytes*8-1:0] head;
  logic [QCW-1:0]  qcnt;
  logic [CW-1:0]   pop;

  assign in_ready_o = !eop_q && (32'(qcnt) + Bytes <= QD);
  assign in_hs      = in_valid_i && in_ready_o;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      open_q <= 1'b0;
      eop_q  <= 1'b0;
    end else if (done_pkt) begin
      open_q <= 1'b0;
      eop_q  <= 1'b0;
    end else if (in_hs) begin
      open_q <= 1'b1;
      if (in_last_i) eop_q <= 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (in_hs && !open_q) begin
      exp_id_q    <= in_exp_block_id_i;
      exp_plane_q <= in_exp_plane_id_i;
      exp_raw_q   <= in_exp_raw_size_i;
      pad_q       <= in_pad_mask_i;
    end
  end

  lz4_byteq #(.Depth(QD), .PushW(Bytes), .PopW(Bytes)) u_inq (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (in_hs ? in_cnt_i : '0),
    .push_data_i(in_data_i),
    .pop_cnt_i  (pop),
    .head_o     (head),
    .count_o    (qcnt)
  );

  // ---------------------------------------------------------------------------------------------
  // Output register, XXH32 and the LZ4 engine
  logic               sp_valid, sp_ready;
  logic [OW-1:0]      sp_data, sp_out;
  logic               hx_valid, hx_ready, hx_last, hv_valid, hv_ready;
  logic [Bytes*8-1:0] hx_data;
  logic [CW-1:0]      hx_cnt;
  logic [31:0]        hv;

  spill_reg #(.Width(OW)) u_out (
    .clk_i, .rst_ni,
    .in_valid_i (sp_valid),
    .in_ready_o (sp_ready),
    .in_data_i  (sp_data),
    .out_valid_o,
    .out_ready_i,
    .out_data_o (sp_out)
  );
  assign {out_data_o, out_cnt_o, out_last_o, out_err_o, out_code_o} = sp_out;

  lane_xxh32 #(.InBytes(Bytes)) u_xxh (
    .clk_i, .rst_ni,
    .in_valid_i  (hx_valid),
    .in_ready_o  (hx_ready),
    .in_data_i   (hx_data),
    .in_cnt_i    (hx_cnt),
    .in_last_i   (hx_last),
    .hash_valid_o(hv_valid),
    .hash_ready_i(hv_ready),
    .hash_o      (hv)
  );

  logic               fd_valid, fd_ready, dv_valid, dv_ready;
  logic [FW-1:0]      fd_data, fd_out;
  logic               dd_valid, dd_ready, dd_last, dd_err;
  logic [Bytes*8-1:0] dd_data;
  logic [CW-1:0]      dd_cnt;
  logic [5:0]         dd_code;        // lane_pkg::status_e of a failing engine row
  logic [16:0]        raw_q;
  logic [3:0]         codec_q;
  logic               lz_valid, lz_last, lz_err, lz_in_ready;
  logic [Bytes*8-1:0] lz_data;
  logic [CW-1:0]      lz_cnt;
  lz4_pkg::err_e      lz_code;
  logic               zs_valid, zs_last, zs_err, zs_in_ready;
  logic [63:0]        zs_data;
  logic [3:0]         zs_cnt;
  logic [4:0]         zs_code;
  logic               use_zstd;

  assign use_zstd = HasZstd && codec_q == 4'd3;

  spill_reg #(.Width(FW)) u_feed (
    .clk_i, .rst_ni,
    .in_valid_i (fd_valid),
    .in_ready_o (fd_ready),
    .in_data_i  (fd_data),
    .out_valid_o(dv_valid),
    .out_ready_i(dv_ready),
    .out_data_o (fd_out)
  );
  assign dv_ready = use_zstd ? zs_in_ready : lz_in_ready;

  lz4_decoder #(
    .InBytes(Bytes), .OutBytes(Bytes), .MatchSlots(MatchSlots), .Seqs(Seqs),
    .MaxBlockBytes(MaxBlockBytes)
  ) u_lz4 (
    .clk_i, .rst_ni,
    .in_valid_i   (dv_valid && !use_zstd),
    .in_ready_o   (lz_in_ready),
    .in_data_i    (fd_out[FW-1 -: Bytes*8]),
    .in_cnt_i     (fd_out[1 +: CW]),
    .in_last_i    (fd_out[0]),
    .in_raw_size_i(raw_q),
    .out_valid_o  (lz_valid),
    .out_ready_i  (dd_ready && !use_zstd),
    .out_data_o   (lz_data),
    .out_cnt_o    (lz_cnt),
    .out_last_o   (lz_last),
    .out_err_o    (lz_err),
    .out_code_o   (lz_code)
  );

  if (HasZstd) begin : gen_zstd
    zstd_lane_dec #(.HistBytes(ZstdHistBytes)) u_zstd (
      .clk_i, .rst_ni,
      .in_valid_i (dv_valid && use_zstd),
      .in_ready_o (zs_in_ready),
      .in_data_i  (fd_out[1 + CW +: 64]),
      .in_cnt_i   (fd_out[1 +: 4]),
      .in_last_i  (fd_out[0]),
      .out_cap_i  (32'(raw_q)),
      .out_valid_o(zs_valid),
      .out_ready_i(dd_ready && use_zstd),
      .out_data_o (zs_data),
      .out_cnt_o  (zs_cnt),
      .out_last_o (zs_last),
      .out_err_o  (zs_err),
      .out_code_o (zs_code)
    );
  end else begin : gen_no_zstd
    assign zs_in_ready = 1'b0;
    assign zs_valid    = 1'b0;
    assign zs_data     = '0;
    assign zs_cnt      = '0;
    assign zs_last     = 1'b0;
    assign zs_err      = 1'b0;
    assign zs_code     = '0;
  end

  // the active engine's rows
  always_comb begin
    if (use_zstd) begin
      dd_valid = zs_valid;
      dd_data  = '0;
      dd_data[63:0] = zs_data;
      dd_cnt   = CW'(zs_cnt);
      dd_last  = zs_last;
      dd_err   = zs_err;
      dd_code  = 6'(lane_pkg::StZstdBase) + 6'(zs_code);
    end else begin
      dd_valid = lz_valid;
      dd_data  = lz_data;
      dd_cnt   = lz_cnt;
      dd_last  = lz_last;
      dd_err   = lz_err;
      dd_code  = 6'(lane_pkg::StLz4Base) + 6'(lz_code);
    end
  end

  // ---------------------------------------------------------------------------------------------
  // State machine
  typedef enum logic [2:0] {SHdr, SRaw, SConst, SEngine, SStatus, SDrain} st_e;
  st_e                st_q, st_d;
  logic [5:0]         code_q, code_d;     // lane_pkg::status_e
  logic [31:0]        csum_q;
  logic [16:0]        rem_q, rem_d, gen_q, gen_d, raw_d;
  logic [7:0]         cval_q, cval_d, lastb_q, lastb_d;
  logic               hopen_q, hopen_d;      // a hash message was closed: its result is due
  logic               fed_q, fed_d;          // the engine got its last input beat
  logic               ddone_q, ddone_d;      // the engine sent its final row
  logic               trunc_q, trunc_d;      // the packet ended inside the payload

  logic unused_guard;
  assign unused_guard = head[28];  // the GUARD flag is informational: decoders accept either value

  function automatic logic [Bytes*8-1:0] keep(input logic [Bytes*8-1:0] d, input logic [CW-1:0] n);
    keep = d;
    for (int i = 0; i < Bytes; i++) if (32'(i) >= 32'(n)) keep[i*8 +: 8] = 8'h00;
  endfunction

  always_comb begin
    logic [31:0] k, g, kf;
    logic        can_emit;
    logic [5:0]  c;
    logic [3:0]  b3c;  // header byte 3: codec (3..0), GUARD (4, informational), reserved (7..5)
    logic [2:0]  b3r;
    logic [16:0] h_raw, h_comp;
    st_d     = st_q;
    code_d   = code_q;
    rem_d    = rem_q;
    gen_d    = gen_q;
    raw_d    = raw_q;
    cval_d   = cval_q;
    lastb_d  = lastb_q;
    hopen_d  = hopen_q;
    fed_d    = fed_q;
    ddone_d  = ddone_q;
    trunc_d  = trunc_q;
    pop      = '0;
    done_pkt = 1'b0;
    sp_valid = 1'b0;
    sp_data  = '0;
    hx_valid = 1'b0;
    hx_data  = '0;
    hx_cnt   = '0;
    hx_last  = 1'b0;
    hv_ready = 1'b0;
    fd_valid = 1'b0;
    fd_data  = '0;
    dd_ready = 1'b0;
    can_emit = sp_ready && hx_ready;
    c        = code_q;
    g        = '0;
    k        = 32'(qcnt);
    if (32'(rem_q) < k) k = 32'(rem_q);
    if (k > Bytes) k = Bytes;
    kf     = (use_zstd && k > 8) ? 32'd8 : k;   // engine feed: ZSTD takes 8 bytes per beat
    b3c    = head[27:24];
    b3r    = head[31:29];
    h_raw  = (head[47:32] == '0) ? 17'd65536 : {1'b0, head[47:32]};
    h_comp = (head[63:48] == '0) ? 17'd65536 : {1'b0, head[63:48]};

    unique case (st_q)
      SHdr: begin
        if (open_q && 32'(qcnt) >= 12) begin
          // docs/spec.md section 3 "Decoding", in the golden decoder's order
          st_d = SStatus;
          if (b3c > 4'd3) code_d = lane_pkg::StCodecUnknown;
          else if (b3r != '0) code_d = lane_pkg::StFlagsReserved;
          else if (!(head[23:16] < 8'd32 || head[23:16] == 8'h40 || head[23:16] == 8'h41))
            code_d = lane_pkg::StPlaneUndef;
          else if ((b3c == 4'd0 && h_comp != h_raw) || (b3c == 4'd1 && h_comp != 17'd1) ||
                   (b3c != 4'd0 && h_comp == 17'd65536))
            code_d = lane_pkg::StSizeRule;
          else if (head[23:16] != exp_plane_q) code_d = lane_pkg::StPlaneMismatch;
          else if (head[15:0] != exp_id_q) code_d = lane_pkg::StBlockMismatch;
          else if (h_raw != exp_raw_q) code_d = lane_pkg::StRawMismatch;
          else begin
            pop     = CW'(12);
            raw_d   = h_raw;
            trunc_d = 1'b0;
            fed_d   = 1'b0;
            ddone_d = 1'b0;
            unique case (b3c[1:0])
              2'd0: begin st_d = SRaw; rem_d = h_comp; end
              2'd1: begin st_d = SConst; rem_d = 17'd1; gen_d = h_raw; end
              2'd2: begin st_d = SEngine; rem_d = h_comp; end
              default: begin
                if (HasZstd) begin st_d = SEngine; rem_d = h_comp; end
                else code_d = lane_pkg::StUnsupported;
              end
            endcase
          end
        end else if (eop_q && 32'(qcnt) < 12) begin
          code_d = lane_pkg::StHdrTrunc;
          st_d   = SStatus;
        end
      end

      SRaw: begin
        if (k != 0) begin
          if (can_emit) begin
            sp_valid = 1'b1;
            sp_data  = {keep(head, CW'(k)), CW'(k), 1'b0, 1'b0, lane_pkg::StOk};
            hx_valid = 1'b1;
            hx_data  = head;
            hx_cnt   = CW'(k);
            hx_last  = (32'(rem_q) == k);
            pop      = CW'(k);
            rem_d    = rem_q - 17'(k);
            lastb_d  = head[(k-1)*8 +: 8];
            if (hx_last) begin
              hopen_d = 1'b1;
              st_d    = SStatus;
            end
          end
        end else if (eop_q && qcnt == '0 && hx_ready) begin
          hx_valid = 1'b1;        // close the hash message; the result is not used
          hx_last  = 1'b1;
          hopen_d  = 1'b1;
          code_d   = lane_pkg::StPayloadTrunc;
          st_d     = SStatus;
        end
      end

      SConst: begin
        if (rem_q != '0) begin
          if (qcnt != '0) begin
            cval_d = head[7:0];
            pop    = CW'(1);
            rem_d  = '0;
          end else if (eop_q && hx_ready) begin
            hx_valid = 1'b1;
            hx_last  = 1'b1;
            hopen_d  = 1'b1;
            code_d   = lane_pkg::StPayloadTrunc;
            st_d     = SStatus;
          end
        end else if (can_emit) begin
          g        = (32'(gen_q) < Bytes) ? 32'(gen_q) : Bytes;
          sp_valid = 1'b1;
          sp_data  = {keep({Bytes{cval_q}}, CW'(g)), CW'(g), 1'b0, 1'b0, lane_pkg::StOk};
          hx_valid = 1'b1;
          hx_data  = {Bytes{cval_q}};
          hx_cnt   = CW'(g);
          hx_last  = (32'(gen_q) == g);
          gen_d    = gen_q - 17'(g);
          lastb_d  = cval_q;
          if (hx_last) begin
            hopen_d = 1'b1;
            st_d    = SStatus;
          end
        end
      end

      SEngine: begin
        // feed the engine (LZ4 or ZSTD, codec_q) exactly the payload (or what the packet has of it)
        if (!fed_q && fd_ready) begin
          if (kf != 0) begin
            fd_valid = 1'b1;
            fd_data  = {head, CW'(kf), (32'(rem_q) == kf) || (eop_q && kf == 32'(qcnt))};
            pop      = CW'(kf);
            rem_d    = rem_q - 17'(kf);
            if (fd_data[0]) begin
              fed_d = 1'b1;
              if (32'(rem_q) != kf) trunc_d = 1'b1;
            end
          end else if (eop_q && qcnt == '0) begin
            fd_valid = 1'b1;       // the packet ended: close the engine's input
            fd_data  = {{Bytes*8{1'b0}}, CW'(0), 1'b1};
            fed_d    = 1'b1;
            trunc_d  = 1'b1;
          end
        end
        // forward its rows (and hash them)
        if (!ddone_q && can_emit) begin
          dd_ready = 1'b1;
          if (dd_valid) begin
            if (dd_cnt != '0) begin
              sp_valid = 1'b1;
              sp_data  = {keep(dd_data, dd_cnt), dd_cnt, 1'b0, 1'b0, lane_pkg::StOk};
              lastb_d  = dd_data[(32'(dd_cnt)-1)*8 +: 8];
            end
            hx_valid = (dd_cnt != '0) || dd_last;
            hx_data  = dd_data;
            hx_cnt   = dd_cnt;
            hx_last  = dd_last;
            if (dd_last) begin
              ddone_d = 1'b1;
              hopen_d = 1'b1;
              if (dd_err) code_d = dd_code;
            end
          end
        end
        if ((fed_q || fed_d) && (ddone_q || ddone_d)) begin
          st_d = SStatus;
          if (trunc_q || trunc_d) code_d = lane_pkg::StPayloadTrunc;
        end
      end

      SStatus: begin
        if (sp_ready && (!hopen_q || hv_valid)) begin
          c = code_q;
          if (hopen_q && c == lane_pkg::StOk) begin
            if (hv != csum_q) c = lane_pkg::StChecksum;
            else if ((lastb_q & pad_q) != '0) c = lane_pkg::StPadding;
          end
          hv_ready = hopen_q;
          hopen_d  = 1'b0;
          sp_valid = 1'b1;
          sp_data  = {{Bytes*8{1'b0}}, CW'(0), 1'b1, c != lane_pkg::StOk, c};
          st_d     = SDrain;
        end
      end

      SDrain: begin
        // drop the rest of the packet (bytes after the payload, or all of it after an error)
        pop = (32'(qcnt) > Bytes) ? CW'(Bytes) : CW'(qcnt);
        if (eop_q && 32'(qcnt) <= Bytes) begin
          done_pkt = 1'b1;
          st_d     = SHdr;
          code_d   = lane_pkg::StOk;
        end
      end
      default: st_d = SHdr;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q    <= SHdr;
      code_q  <= lane_pkg::StOk;
      hopen_q <= 1'b0;
      fed_q   <= 1'b0;
      ddone_q <= 1'b0;
      trunc_q <= 1'b0;
      rem_q   <= '0;
      gen_q   <= '0;
      raw_q   <= 17'd1;
    end else begin
      st_q    <= st_d;
      code_q  <= code_d;
      hopen_q <= hopen_d;
      fed_q   <= fed_d;
      ddone_q <= ddone_d;
      trunc_q <= trunc_d;
      rem_q   <= rem_d;
      gen_q   <= gen_d;
      raw_q   <= raw_d;
    end
  end
  always_ff @(posedge clk_i) begin
    cval_q  <= cval_d;
    lastb_q <= lastb_d;
    if (st_q == SHdr) csum_q <= head[95:64];
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) codec_q <= '0;
    else if (st_q == SHdr) codec_q <= head[27:24];
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Bytes >= 16 && Bytes % 16 == 0)
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o,
                     {in_data_i, in_cnt_i, in_last_i, in_exp_block_id_i, in_exp_plane_id_i,
                      in_exp_raw_size_i, in_pad_mask_i})
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                     {out_data_o, out_cnt_o, out_last_o, out_err_o, out_code_o})
  `NDP_ASSERT(pop_a, 32'(pop) <= 32'(qcnt))
  `NDP_ASSERT(emit_a, !sp_valid || sp_ready)
  `NDP_ASSERT(hash_a, !hx_valid || hx_ready)
  `NDP_ASSERT(feed_a, !fd_valid || fd_ready)
  `NDP_ASSERT(status_last_a, !(out_valid_o && out_last_o) || out_cnt_o == '0)
  `NDP_ASSERT(codec_engine_a, st_q != SEngine || codec_q == 4'd2 || (HasZstd && codec_q == 4'd3))
  `NDP_ASSERT(zstd_feed_a, !(dv_valid && use_zstd) || fd_out[1 +: CW] <= CW'(8))
  `NDP_ASSERT_INIT(zstd_hist_a, !HasZstd || ZstdHistBytes >= MaxBlockBytes)
endmodule
