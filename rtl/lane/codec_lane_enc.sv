// codec_lane_enc: encode direction of the codec lane. Takes one raw plane block per packet and
// writes the stored block (docs/spec.md section 3): the 12-byte header with XXH32 of the raw
// bytes, then the payload chosen exactly as the golden model chooses it (encode_block_lane in
// sw/codec zstd_hw_model.h): CONST when every byte is equal; else the candidates of the codec
// policy (auto: LZ4 and ZSTD, lz4, zstd, raw: none) from the lane's engines, lz4_encoder and
// zstd_encoder (Huffman mode for EXPBYTE planes, plane id 0x40: the spec 4.3 frame; with
// ZstdHufLits also the sequences frame with Huffman-coded literals, the smaller kept); a candidate
// counts only when it saves at least one 64-byte burst, the smallest counting one wins, ties to
// LZ4; else RAW. With HasZstd = 0 (the LZ4-only lane) there is no ZSTD candidate.
//
/// Input: beats of InBytes bytes except the last, with the block's header fields held for the
/// whole packet. Output: header + payload in beats of OutBytes bytes except the last.
/// Registers: the raw block, the LZ4 output and the ZSTD output in RAMs (ram_1r1w, OutBytes-byte
/// words), the block state, the XXH32 unit, the output byte queue. A block is taken in (both
/// engines run on it at once), then written out; the next block's input waits for the previous
/// block's last output beat.
`include "ndp_assert.svh"

module codec_lane_enc #(
  parameter int unsigned InBytes       = 16,
  parameter int unsigned OutBytes      = 32,
  parameter int unsigned HashBits      = 13,
  parameter int unsigned HashBanks     = 64,
  parameter int unsigned MatchBytes    = 16,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter bit          HasZstd       = 1'b1,
  // the ZSTD engine's finder hash (the LZ4 engine's: 4) and Huffman literals; with ZstdHufLits an
  // EXPBYTE job is a dual job (the smaller of the Huffman frame and the sequences frame)
  parameter int unsigned ZstdHashBytes = 8,
  parameter int unsigned ZstdHufLits   = 1,
  localparam int unsigned ICW = $clog2(InBytes + 1),
  localparam int unsigned OCW = $clog2(OutBytes + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  in_valid_i,
  output logic                  in_ready_o,
  input  logic [InBytes*8-1:0]  in_data_i,
  input  logic [ICW-1:0]        in_cnt_i,
  input  logic                  in_last_i,
  input  logic [15:0]           in_block_id_i,
  input  logic [7:0]            in_plane_id_i,
  input  logic                  in_guard_i,
  input  logic [16:0]           in_raw_size_i,   // 1..MaxBlockBytes
  input  logic [1:0]            in_policy_i,     // 0 auto, 1 lz4, 2 zstd, 3 raw (ndp::CodecPolicy)
  output logic                  out_valid_o,
  input  logic                  out_ready_i,
  output logic [OutBytes*8-1:0] out_data_o,
  output logic [OCW-1:0]        out_cnt_o,
  output logic                  out_last_o
);
  localparam int unsigned Words = MaxBlockBytes / OutBytes;
  localparam int unsigned WW    = $clog2(Words);
  localparam int unsigned Lanes = OutBytes / InBytes;
  localparam int unsigned QD    = 4 * OutBytes;
  localparam int unsigned QCW   = $clog2(QD + 1);

  typedef enum logic [1:0] {PIn, PWait, POut} ph_e;
  ph_e         ph_q;
  logic [16:0] rcv_q, raw_q;
  logic [17:0] comp_q;                      // LZ4 bytes written by the engine (may exceed 65536)
  logic        eq_q, use_q, usez_q, guard_q, enc_done_q, zenc_done_q;
  logic [17:0] zcomp_q;                     // ZSTD bytes written by its engine
  logic        use_lz4, use_zstd;
  assign use_lz4  = in_policy_i == 2'd0 || in_policy_i == 2'd1;
  assign use_zstd = HasZstd && (in_policy_i == 2'd0 || in_policy_i == 2'd2);
  logic [7:0]  v0_q, plane_q;
  logic [15:0] id_q;

  // ---------------------------------------------------------------------------------------------
  // Input: fork to the XXH32 unit and the engines; the raw bytes go to the raw RAM
  logic [2:0]  f_valid, f_ready;
  logic        f_in_ready, in_hs;
  logic        hv_valid, hv_ready;
  logic [31:0] hv;

  stream_fork #(.N(3)) u_fork (
    .clk_i, .rst_ni,
    .en_i       ({use_zstd, use_lz4, 1'b1}),
    .in_valid_i (in_valid_i && ph_q == PIn),
    .in_ready_o (f_in_ready),
    .out_valid_o(f_valid),
    .out_ready_i(f_ready)
  );
  assign in_ready_o = f_in_ready && ph_q == PIn;
  assign in_hs      = in_valid_i && in_ready_o;

  lane_xxh32 #(.InBytes(InBytes)) u_xxh (
    .clk_i, .rst_ni,
    .in_valid_i  (f_valid[0]),
    .in_ready_o  (f_ready[0]),
    .in_data_i   (in_data_i),
    .in_cnt_i    (in_cnt_i),
    .in_last_i   (in_last_i),
    .hash_valid_o(hv_valid),
    .hash_ready_i(hv_ready),
    .hash_o      (hv)
  );

  logic                  e_valid, e_last;
  logic [OutBytes*8-1:0] e_data;
  logic [OCW-1:0]        e_cnt;

  lz4_encoder #(
    .InBytes(InBytes), .OutBytes(OutBytes), .HashBits(HashBits), .HashBanks(HashBanks),
    .MatchBytes(MatchBytes), .MaxBlockBytes(MaxBlockBytes)
  ) u_lz4 (
    .clk_i, .rst_ni,
    .in_valid_i (f_valid[1]),
    .in_ready_o (f_ready[1]),
    .in_data_i  (in_data_i),
    .in_cnt_i   (in_cnt_i),
    .in_last_i  (in_last_i),
    .in_size_i  (in_raw_size_i),
    .out_valid_o(e_valid),
    .out_ready_i(1'b1),
    .out_data_o (e_data),
    .out_cnt_o  (e_cnt),
    .out_last_o (e_last)
  );

  // raw RAM: InBytes-byte lanes of OutBytes-byte words
  logic              rr_re, cr_re;
  logic [WW-1:0]     rr_addr, cr_addr;
  logic [OutBytes*8-1:0] rr_data, cr_data;
  logic [Lanes-1:0]  rr_lane;
  always_comb begin
    for (int l = 0; l < Lanes; l++)
      rr_lane[l] = (32'(rcv_q[$clog2(OutBytes)-1:0]) / InBytes == l);
  end
  ram_1r1w #(.Width(OutBytes * 8), .Depth(Words), .Lanes(Lanes)) u_raw (
    .clk_i, .rst_ni,
    .we_i   (in_hs),
    .waddr_i(WW'(rcv_q >> $clog2(OutBytes))),
    .wlane_i(rr_lane),
    .wdata_i({Lanes{in_data_i}}),
    .re_i   (rr_re),
    .raddr_i(rr_addr),
    .rdata_o(rr_data)
  );
  // LZ4 RAM: the engine's output beats (full except the last), kept while they fit
  ram_1r1w #(.Width(OutBytes * 8), .Depth(Words)) u_comp (
    .clk_i, .rst_ni,
    .we_i   (e_valid && 32'(comp_q) < MaxBlockBytes),
    .waddr_i(WW'(comp_q >> $clog2(OutBytes))),
    .wlane_i(1'b1),
    .wdata_i(e_data),
    .re_i   (cr_re),
    .raddr_i(cr_addr),
    .rdata_o(cr_data)
  );

  // ZSTD engine: one single-block frame per plane block; its output kept in the ZSTD RAM while it
  // fits (a frame that does not fit in MaxBlockBytes cannot save a burst)
  logic              z_valid, z_last, zr_re;
  logic [255:0]      z_data;
  logic [5:0]        z_cnt;
  logic [OutBytes*8-1:0] zr_data;
  if (HasZstd) begin : gen_zstd
    /* verilator lint_off UNUSEDSIGNAL */
    logic [1:0] z_kind;
    /* verilator lint_on UNUSEDSIGNAL */
    zstd_encoder #(.InBytes(InBytes), .HashBits(HashBits), .HashBytes(ZstdHashBytes),
                   .HashBanks(HashBanks), .MatchBytes(MatchBytes), .MaxBlockBytes(MaxBlockBytes),
                   .HufLits(ZstdHufLits)) u_zstd (
      .clk_i, .rst_ni,
      .in_valid_i  (f_valid[2]),
      .in_ready_o  (f_ready[2]),
      .in_data_i   (in_data_i),
      .in_cnt_i    (in_cnt_i),
      .in_last_i   (in_last_i),
      .in_size_i   (in_raw_size_i),
      .in_huf_i    (in_plane_id_i == 8'h40),
      .in_hl_i     (in_plane_id_i == 8'h40),
      .in_first_i  (1'b1),
      .in_lastblk_i(1'b1),
      .in_total_i  (32'(in_raw_size_i)),
      .out_valid_o (z_valid),
      .out_ready_i (1'b1),
      .out_data_o  (z_data),
      .out_cnt_o   (z_cnt),
      .out_last_o  (z_last),
      .out_kind_o  (z_kind)
    );
    ram_1r1w #(.Width(OutBytes * 8), .Depth(Words)) u_zcomp (
      .clk_i, .rst_ni,
      .we_i   (z_valid && 32'(zcomp_q) < MaxBlockBytes),
      .waddr_i(WW'(zcomp_q >> $clog2(OutBytes))),
      .wlane_i(1'b1),
      .wdata_i((OutBytes*8)'(z_data)),
      .re_i   (zr_re),
      .raddr_i(cr_addr),
      .rdata_o(zr_data)
    );
  end else begin : gen_no_zstd
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused;
    assign unused     = f_valid[2] ^ zr_re ^ (^z_data);
    /* verilator lint_on UNUSEDSIGNAL */
    assign f_ready[2] = 1'b1;
    assign z_valid    = 1'b0;
    assign z_last     = 1'b0;
    assign z_data     = '0;
    assign z_cnt      = '0;
    assign zr_data    = '0;
  end

  // ---------------------------------------------------------------------------------------------
  // Block state and the codec decision (docs/spec.md section 3, "Codec choice and raw bypass")
  logic [1:0]  codec_q;
  logic [16:0] psize_q;                    // payload bytes
  logic [31:0] csum_q;
  logic        hdr_done_q, fetch_q, pushed_q;
  logic [16:0] rd_q;                       // payload bytes requested from the RAM
  logic [OCW-1:0] fly_cnt_q;               // bytes of the RAM word arriving this cycle

  logic        beq;                        // every byte of this beat equals the block's first
  always_comb begin
    beq = 1'b1;
    for (int i = 0; i < InBytes; i++) begin
      if (32'(i) < 32'(in_cnt_i) && in_data_i[i*8 +: 8] != ((rcv_q == '0) ? in_data_i[7:0] : v0_q))
        beq = 1'b0;
    end
  end

  logic [QCW-1:0]        qcnt;
  logic [OutBytes*8-1:0] qhead;
  logic [OCW-1:0]        push_cnt;
  logic [OutBytes*8-1:0] push_data;
  logic                  out_hs;
  logic                  room;

  assign room = 32'(qcnt) + 2 * OutBytes <= QD;

  logic lz4_pays, zstd_pays;   // the payload saves at least one 64-byte burst
  assign lz4_pays  = use_q && ((comp_q + 18'd63) >> 6) < ((18'(raw_q) + 18'd63) >> 6);
  assign zstd_pays = usez_q && ((zcomp_q + 18'd63) >> 6) < ((18'(raw_q) + 18'd63) >> 6);

  always_comb begin
    logic [16:0] rem;
    push_cnt  = '0;
    push_data = '0;
    rr_re     = 1'b0;
    cr_re     = 1'b0;
    zr_re     = 1'b0;
    rr_addr   = WW'(rd_q >> $clog2(OutBytes));
    cr_addr   = WW'(rd_q >> $clog2(OutBytes));
    hv_ready  = 1'b0;
    rem       = psize_q - rd_q;
    if (ph_q == PWait && hv_valid && (enc_done_q || !use_q) && (zenc_done_q || !usez_q)) hv_ready = 1'b1;
    if (ph_q == POut) begin
      if (!hdr_done_q) begin
        push_cnt  = OCW'(12);
        push_data = (OutBytes*8)'({csum_q, psize_q[15:0], raw_q[15:0],
                                   {3'b000, guard_q, 2'b00, codec_q}, plane_q, id_q});
      end else if (fly_cnt_q != '0) begin
        push_cnt  = fly_cnt_q;
        push_data = (codec_q == 2'd1) ? (OutBytes*8)'(v0_q) :
                    ((codec_q == 2'd2) ? cr_data : ((codec_q == 2'd3) ? zr_data : rr_data));
      end
      if (room && hdr_done_q && fetch_q && rem != '0) begin
        rr_re = (codec_q == 2'd0);
        cr_re = (codec_q == 2'd2);
        zr_re = (codec_q == 2'd3);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ph_q       <= PIn;
      rcv_q      <= '0;
      comp_q     <= '0;
      enc_done_q <= 1'b0;
      zcomp_q    <= '0;
      zenc_done_q <= 1'b0;
      hdr_done_q <= 1'b0;
      pushed_q   <= 1'b0;
      fly_cnt_q  <= '0;
      rd_q       <= '0;
      fetch_q    <= 1'b0;
      eq_q       <= 1'b1;
    end else begin
      if (e_valid) begin
        comp_q <= comp_q + 18'(e_cnt);
        if (e_last) enc_done_q <= 1'b1;
      end
      if (z_valid) begin
        zcomp_q <= zcomp_q + 18'(z_cnt);
        if (z_last) zenc_done_q <= 1'b1;
      end
      fly_cnt_q <= '0;
      unique case (ph_q)
        PIn: if (in_hs) begin
          if (rcv_q == '0) begin
            v0_q    <= in_data_i[7:0];
            id_q    <= in_block_id_i;
            plane_q <= in_plane_id_i;
            guard_q <= in_guard_i;
            raw_q   <= in_raw_size_i;
            use_q   <= use_lz4;
            usez_q  <= use_zstd;
            eq_q    <= beq;
          end else begin
            eq_q <= eq_q && beq;
          end
          rcv_q <= rcv_q + 17'(in_cnt_i);
          if (in_last_i) ph_q <= PWait;
        end
        PWait: if (hv_ready) begin
          csum_q <= hv;
          if (eq_q) begin
            codec_q <= 2'd1;
            psize_q <= 17'd1;
          end else if (zstd_pays && (!lz4_pays || zcomp_q < comp_q)) begin
            codec_q <= 2'd3;
            psize_q <= zcomp_q[16:0];
          end else if (lz4_pays) begin
            codec_q <= 2'd2;
            psize_q <= comp_q[16:0];
          end else begin
            codec_q <= 2'd0;
            psize_q <= raw_q;
          end
          ph_q       <= POut;
          hdr_done_q <= 1'b0;
          rd_q       <= '0;
        end
        POut: begin
          if (!hdr_done_q) begin
            hdr_done_q <= 1'b1;
            fetch_q    <= 1'b1;
            if (codec_q == 2'd1) begin
              fly_cnt_q <= OCW'(1);      // the CONST byte goes out next cycle
              rd_q      <= 17'd1;
              fetch_q   <= 1'b0;
            end
          end else if (rr_re || cr_re || zr_re) begin
            logic [16:0] rem;
            rem       = psize_q - rd_q;
            fly_cnt_q <= (rem < 17'(OutBytes)) ? OCW'(rem) : OCW'(OutBytes);
            rd_q      <= rd_q + ((rem < 17'(OutBytes)) ? rem : 17'(OutBytes));
          end
          // the final payload bytes enter the output queue this cycle: from the next cycle on the
          // queue holds the whole block, so out_last_o never rises under a waiting beat
          if (hdr_done_q && rd_q == psize_q && fly_cnt_q != '0) pushed_q <= 1'b1;
          if (out_hs && out_last_o) begin
            ph_q       <= PIn;
            rcv_q      <= '0;
            comp_q     <= '0;
            enc_done_q <= 1'b0;
            zcomp_q    <= '0;
            zenc_done_q <= 1'b0;
            pushed_q   <= 1'b0;
            fetch_q    <= 1'b0;
          end
        end
        default: ph_q <= PIn;
      endcase
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Output byte queue: full beats except the block's last
  assign out_valid_o = (32'(qcnt) >= OutBytes) || (pushed_q && qcnt != '0);
  assign out_last_o  = pushed_q && (32'(qcnt) <= OutBytes);
  assign out_cnt_o   = (32'(qcnt) >= OutBytes) ? OCW'(OutBytes) : OCW'(qcnt);
  assign out_data_o  = qhead;
  assign out_hs      = out_valid_o && out_ready_i;

  lz4_byteq #(.Depth(QD), .PushW(OutBytes), .PopW(OutBytes)) u_outq (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (push_cnt),
    .push_data_i(push_data),
    .pop_cnt_i  (out_hs ? out_cnt_o : '0),
    .head_o     (qhead),
    .count_o    (qcnt)
  );

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, OutBytes % InBytes == 0 && OutBytes >= 16 && InBytes % 16 == 0 &&
                   (!HasZstd || (OutBytes == 32 && InBytes == 16)))
  `NDP_ASSERT_STREAM(in_stream_a, in_valid_i, in_ready_o,
                     {in_data_i, in_cnt_i, in_last_i, in_block_id_i, in_plane_id_i, in_guard_i,
                      in_raw_size_i, in_policy_i})
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
  `NDP_ASSERT(raw_size_a, !in_valid_i || (in_raw_size_i != '0 && 32'(in_raw_size_i) <= MaxBlockBytes))
  `NDP_ASSERT(plane_a, !in_valid_i || in_plane_id_i < 8'd32 || in_plane_id_i == 8'h40 ||
                       in_plane_id_i == 8'h41)
  `NDP_ASSERT(full_beats_a, !in_hs || in_last_i || 32'(in_cnt_i) == InBytes)
  `NDP_ASSERT(size_match_a, !in_hs || in_last_i == (rcv_q + 17'(in_cnt_i) == in_raw_size_i))
  `NDP_ASSERT(push_fits_a, 32'(qcnt) + 32'(push_cnt) <= QD)
  `NDP_ASSERT(no_out_while_in_a, ph_q == POut || !out_valid_o)
endmodule
