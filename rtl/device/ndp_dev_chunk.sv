// ndp_dev_chunk: the chunk engine of ndp_device. Chunk jobs (tensor, chunk, region, chunk buffer)
// queue here and flow through three stages that work on different jobs at once:
//   index     ndp_dev_index fetches and checks the chunk's index entry into a staging set's bounds;
//   dispatch  the blocks the region fetches go to free decode lanes (ndp_dev_lane), set after set,
//             and the lanes write the decoded planes into that set (ndp_dev_stage);
//   retire    in job order, a set whose blocks are all back is assembled (bp_assembler, AsmLanes
//             elements per beat) into its chunk buffer, or, when a check failed, reported failed and logged
//             (demand jobs only: a failed prefetch is dropped silently, spec 7.6).
// ndp_dev_sets keeps the staging-set ring (formal proof in rtl/formal). Done reports come back in
// job order, one per job, with the job's buffer and an error flag.
//
/// Registers: the job FIFO, each set's job, buffer and error record (lowest failing slot), the
/// bounds RAM (Sets x 16 block extents), the dispatcher's slot and block, each lane's set/slot/start,
/// the retire state, the assembler feed (stage read, 4-entry fifo_sync), the assembler and the byte
/// queue that packs its output into 64-byte chunk-buffer words.
`include "ndp_assert.svh"

module ndp_dev_chunk #(
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned Bufs          = 8,      // chunk buffers (the RAM is outside)
  parameter int unsigned Sets          = 4,      // staging sets: chunks in flight
  parameter int unsigned DramAw        = 30,
  parameter int unsigned AsmLanes      = 32,     // elements per assembler beat (16: 32 B/cycle of BF16, 32: 64)
  localparam int unsigned BW       = (Bufs > 1) ? $clog2(Bufs) : 1,
  localparam int unsigned SW       = (Sets > 1) ? $clog2(Sets) : 1,
  localparam int unsigned EbAw     = $clog2(MaxChunkElems / 32),
  localparam int unsigned BufWords = MaxChunkElems * 2 / 64, // 64-byte words of one chunk buffer
  localparam int unsigned RcbAw    = BW + $clog2(BufWords),
  localparam int unsigned LW       = (Lanes > 1) ? $clog2(Lanes) : 1,
  localparam int unsigned FbW      = $clog2(MaxChunkElems / AsmLanes + 1),  // assembler beats of a chunk
  localparam int unsigned AsmSh    = $clog2(AsmLanes),
  localparam int unsigned OutB     = 2 * AsmLanes,                          // assembler output bytes per beat
  localparam int unsigned OutCW    = $clog2(OutB + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // jobs
  input  logic                 job_valid_i,
  output logic                 job_ready_o,
  input  ndp_dev_pkg::job_t    job_i,
  input  logic [BW-1:0]        job_buf_i,
  output logic                 done_o,        // one cycle per job, in job order
  output logic [BW-1:0]        done_buf_o,
  output logic                 done_err_o,
  // DRAM reads of the index entry (one line per request)
  output logic                 ix_ar_valid_o,
  input  logic                 ix_ar_ready_i,
  output logic [33:0]          ix_ar_line_o,
  input  logic                 ix_r_valid_i,
  input  logic [511:0]         ix_r_data_i,
  // lanes (lane i's fields at [i*W +: W])
  output logic [Lanes-1:0]     as_valid_o,
  input  logic [Lanes-1:0]     as_ready_i,
  output logic [39:0]          as_start_o,
  output logic [39:0]          as_end_o,
  output logic [15:0]          as_block_id_o,
  output logic [7:0]           as_plane_o,
  output logic [16:0]          as_raw_o,
  output logic [7:0]           as_pad_o,
  output logic [4:0]           as_bank_o,
  input  logic [Lanes-1:0]     dn_valid_i,
  output logic [Lanes-1:0]     dn_ready_o,
  input  logic [Lanes*8-1:0]   dn_code_i,     // device error code (0 ok, 4 BlockSpan, 16 + lane status)
  input  logic [Lanes-1:0]     st_we_i,
  input  logic [Lanes*5-1:0]   st_bank_i,
  input  logic [Lanes*EbAw-1:0] st_addr_i,
  input  logic [Lanes*256-1:0] st_data_i,
  // chunk buffer writes
  output logic                 rcb_we_o,
  output logic [RcbAw-1:0]     rcb_addr_o,
  output logic [511:0]         rcb_data_o,
  // log and counters
  output logic                 err_valid_o,
  output ndp_dev_pkg::err_t    err_o,
  output logic                 cnt_block_o
);
  // ---------------------------------------------------------------------------------------------
  // Job FIFO (at most one job per chunk buffer is outstanding)
  localparam int unsigned JW = ndp_dev_pkg::JobBits + BW;
  logic              jq_valid, jq_ready;
  logic [JW-1:0]     jq_out;
  ndp_dev_pkg::job_t jq_job;
  logic [BW-1:0]     jq_buf;
  logic [$clog2(Bufs + 1)-1:0] unused_jq_cnt;
  fifo_sync #(.Width(JW), .Depth(Bufs)) u_jobs (
    .clk_i, .rst_ni,
    .in_valid_i (job_valid_i),
    .in_ready_o (job_ready_o),
    .in_data_i  ({job_i, job_buf_i}),
    .out_valid_o(jq_valid),
    .out_ready_i(jq_ready),
    .out_data_o (jq_out),
    .count_o    (unused_jq_cnt)
  );
  assign {jq_job, jq_buf} = jq_out;

  // ---------------------------------------------------------------------------------------------
  // Staging-set ring
  logic          free, take, ix_done, ix_err, disp_valid, disp_err, disp_blk, disp_end;
  logic          blk_done, rt_valid, rt_err, rt;
  logic [SW-1:0] ap, ix_set, dp, blk_set, rp;
  ndp_dev_sets #(.Sets(Sets), .MaxBlocks(16)) u_sets (
    .clk_i, .rst_ni,
    .free_o(free), .ap_o(ap), .take_i(take),
    .ix_done_i(ix_done), .ix_set_i(ix_set), .ix_err_i(ix_err),
    .disp_valid_o(disp_valid), .dp_o(dp), .disp_err_o(disp_err), .disp_blk_i(disp_blk),
    .disp_end_i(disp_end),
    .blk_done_i(blk_done), .blk_set_i(blk_set),
    .rt_valid_o(rt_valid), .rp_o(rp), .rt_err_o(rt_err), .rt_i(rt)
  );

  ndp_dev_pkg::job_t sjob_q [Sets];
  logic [BW-1:0]     sbuf_q [Sets];

  // ---------------------------------------------------------------------------------------------
  // Index stage
  logic        ix_ready, bd_we;
  logic [SW+3:0] bd_waddr;
  logic [79:0] bd_wdata;
  logic [3:0]  ix_err_slot;
  logic [7:0]  ix_err_plane;
  logic [39:0] ix_err_addr;
  assign take     = jq_valid && ix_ready && free;
  assign jq_ready = take;
  ndp_dev_index #(.Sets(Sets), .DramAw(DramAw)) u_index (
    .clk_i, .rst_ni,
    .job_valid_i(take), .job_ready_o(ix_ready), .job_i(jq_job), .set_i(ap),
    .ix_ar_valid_o, .ix_ar_ready_i, .ix_ar_line_o, .ix_r_valid_i, .ix_r_data_i,
    .bd_we_o(bd_we), .bd_addr_o(bd_waddr), .bd_data_o(bd_wdata),
    .done_o(ix_done), .done_set_o(ix_set), .done_err_o(ix_err),
    .err_slot_o(ix_err_slot), .err_plane_o(ix_err_plane), .err_addr_o(ix_err_addr)
  );

  logic        bd_re;
  logic [SW+3:0] bd_raddr;
  logic [79:0] bd_rdata;
  ram_1r1w #(.Width(80), .Depth(Sets * 16)) u_bounds (
    .clk_i, .rst_ni,
    .we_i(bd_we), .waddr_i(bd_waddr), .wlane_i(1'b1), .wdata_i(bd_wdata),
    .re_i(bd_re), .raddr_i(bd_raddr), .rdata_o(bd_rdata)
  );

  // ---------------------------------------------------------------------------------------------
  // Dispatch: the fetched slots of set dp, in slot order, each to the lowest free lane
  typedef enum logic [1:0] {DsIdle, DsScan, DsHold} ds_e;
  ds_e               ds_q;
  logic [4:0]        slot_q;
  ndp_dev_pkg::job_t djob;
  logic [15:0]       dneed;
  logic [7:0]        dplane;
  logic [LW-1:0]     free_lane;
  logic              have_free;
  logic [SW-1:0]     lane_set_q   [Lanes];
  logic [3:0]        lane_slot_q  [Lanes];
  logic [39:0]       lane_start_q [Lanes];

  assign djob  = sjob_q[dp];
  assign dneed = ndp_dev_pkg::need_mask(djob.fmt, djob.k, djob.guard, djob.expbyte);
  assign dplane = ndp_dev_pkg::plane_of(djob.expbyte, slot_q[3:0]);
  always_comb begin
    have_free = 1'b0;
    free_lane = '0;
    for (int i = Lanes - 1; i >= 0; i--) begin
      if (as_ready_i[i]) begin
        have_free = 1'b1;
        free_lane = LW'(i);
      end
    end
  end
  logic ds_scan_end, ds_scan_read;
  assign ds_scan_end  = ds_q == DsScan && slot_q >= 5'(djob.slots);
  assign ds_scan_read = ds_q == DsScan && !ds_scan_end && dneed[slot_q[3:0]];
  assign bd_re    = ds_scan_read;
  assign bd_raddr = {dp, slot_q[3:0]};
  assign disp_blk = ds_q == DsHold && have_free;
  assign disp_end = (ds_q == DsIdle && disp_valid && disp_err) || ds_scan_end;

  always_comb begin
    as_valid_o            = '0;
    as_valid_o[free_lane] = disp_blk;
    as_start_o    = bd_rdata[39:0];
    as_end_o      = bd_rdata[79:40];
    as_block_id_o = djob.chunk[15:0];
    as_plane_o    = dplane;
    as_raw_o      = (dplane == ndp_dev_pkg::PlaneExpByte) ? 17'(djob.n) : 17'((djob.n + 32'd7) >> 3);
    as_pad_o      = (dplane == ndp_dev_pkg::PlaneExpByte || djob.n[2:0] == 3'd0) ? 8'h00
                  : ~((8'd1 << djob.n[2:0]) - 8'd1);
    as_bank_o     = (dplane == ndp_dev_pkg::PlaneExpByte) ? 5'd16 : dplane[4:0];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ds_q   <= DsIdle;
      slot_q <= '0;
    end else begin
      unique case (ds_q)
        DsIdle: if (disp_valid && !disp_err) begin
          ds_q   <= DsScan;
          slot_q <= '0;
        end
        DsScan: begin
          if (ds_scan_end) ds_q <= DsIdle;
          else if (ds_scan_read) ds_q <= DsHold;
          else slot_q <= slot_q + 5'd1;
        end
        DsHold: if (have_free) begin
          ds_q   <= DsScan;
          slot_q <= slot_q + 5'd1;
        end
        default: ds_q <= DsIdle;
      endcase
    end
  end
  always_ff @(posedge clk_i) begin
    if (disp_blk) begin
      lane_set_q[free_lane]   <= dp;
      lane_slot_q[free_lane]  <= slot_q[3:0];
      lane_start_q[free_lane] <= bd_rdata[39:0];
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Block completions: one lane per cycle (lowest first); each set keeps its lowest failing slot
  logic          dn_any;
  logic [LW-1:0] dn_lane;
  logic [7:0]    dn_code;
  always_comb begin
    dn_any  = 1'b0;
    dn_lane = '0;
    for (int i = Lanes - 1; i >= 0; i--) begin
      if (dn_valid_i[i]) begin
        dn_any  = 1'b1;
        dn_lane = LW'(i);
      end
    end
    dn_ready_o = '0;
    dn_ready_o[dn_lane] = dn_any;
    dn_code = dn_code_i[dn_lane * 8 +: 8];
  end
  assign blk_done    = dn_any;
  assign blk_set     = lane_set_q[dn_lane];
  // a named wire: Yosys 0.23 rejects a member select on arr[var]; only .expbyte is read
  /* verilator lint_off UNUSEDSIGNAL */
  ndp_dev_pkg::job_t blk_job;
  /* verilator lint_on UNUSEDSIGNAL */
  assign blk_job     = sjob_q[blk_set];
  assign cnt_block_o = dn_any;

  logic [Sets-1:0] be_valid_q;
  logic [3:0]      be_slot_q  [Sets];
  logic [7:0]      be_code_q  [Sets];
  logic [7:0]      be_plane_q [Sets];
  logic [39:0]     be_addr_q  [Sets];
  logic            dn_err_new;
  assign dn_err_new = dn_any && dn_code != 8'd0
                   && (!be_valid_q[blk_set] || lane_slot_q[dn_lane] < be_slot_q[blk_set]);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) be_valid_q <= '0;
    else begin
      if (take) be_valid_q[ap] <= 1'b0;
      if (ix_done && ix_err) be_valid_q[ix_set] <= 1'b1;
      if (dn_err_new) be_valid_q[blk_set] <= 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    if (take) begin
      sjob_q[ap] <= jq_job;
      sbuf_q[ap] <= jq_buf;
    end
    if (ix_done && ix_err) begin
      be_slot_q[ix_set]  <= ix_err_slot;
      be_code_q[ix_set]  <= ndp_dev_pkg::ErrIndex;
      be_plane_q[ix_set] <= ix_err_plane;
      be_addr_q[ix_set]  <= ix_err_addr;
    end
    if (dn_err_new) begin
      be_slot_q[blk_set]  <= lane_slot_q[dn_lane];
      be_code_q[blk_set]  <= dn_code;
      be_plane_q[blk_set] <= ndp_dev_pkg::plane_of(blk_job.expbyte, lane_slot_q[dn_lane]);
      be_addr_q[blk_set]  <= lane_start_q[dn_lane];
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Staging sets
  logic [Lanes*SW-1:0] st_set;
  for (genvar i = 0; i < Lanes; i++) begin : gen_st_set
    assign st_set[i*SW +: SW] = lane_set_q[i];
  end
  logic              fd_re;
  logic [FbW-1:0]    fd_beat_q;
  logic [24*AsmLanes-1:0] fd_word;
  ndp_dev_pkg::job_t rjob;
  assign rjob = sjob_q[rp];
  ndp_dev_stage #(.Lanes(Lanes), .Sets(Sets), .MaxChunkElems(MaxChunkElems), .AsmLanes(AsmLanes)) u_stage (
    .clk_i, .rst_ni,
    .we_i(st_we_i), .set_i(st_set), .bank_i(st_bank_i), .addr_i(st_addr_i), .data_i(st_data_i),
    .rd_i(fd_re), .rd_set_i(rp), .rd_beat_i($clog2(MaxChunkElems / AsmLanes)'(fd_beat_q)), .rd_expbyte_i(rjob.expbyte),
    .rd_data_o(fd_word)
  );

  // ---------------------------------------------------------------------------------------------
  // Retire: in set order; assemble set rp into its chunk buffer, or report it failed
  typedef enum logic [1:0] {RtIdle, RtAssemble, RtDone} rt_e;
  rt_e  rt_q;
  logic rt_fail;
  assign rt_fail = rt_err || be_valid_q[rp];

  localparam int unsigned FW = 24 * AsmLanes;
  logic [FbW-1:0] fd_beats;
  logic         fd_pend_q, ff_valid, ff_ready, asm_started_q, flush_q, cmd_valid, cmd_ready;
  logic [FW-1:0] ff_out;
  logic [2:0]   ff_cnt;
  logic         unused_ff_ready, unused_asm_busy;
  assign fd_beats = FbW'((rjob.n + 32'(AsmLanes - 1)) >> AsmSh);
  assign fd_re    = rt_q == RtAssemble && asm_started_q && fd_beat_q < fd_beats
                 && 32'(ff_cnt) + 32'(fd_pend_q) < 32'd4;
  fifo_sync #(.Width(FW), .Depth(4)) u_feed (
    .clk_i, .rst_ni,
    .in_valid_i (fd_pend_q),
    .in_ready_o (unused_ff_ready),
    .in_data_i  (fd_word),
    .out_valid_o(ff_valid),
    .out_ready_i(ff_ready),
    .out_data_o (ff_out),
    .count_o    (ff_cnt)
  );

  bp_pkg::fmt_e asm_fmt;
  always_comb begin
    unique case (rjob.fmt)
      ndp_dev_pkg::FmtEmK:   asm_fmt = bp_pkg::FmtEmK;
      ndp_dev_pkg::FmtE4M3:  asm_fmt = bp_pkg::FmtE4M3;
      ndp_dev_pkg::FmtE5M2:  asm_fmt = bp_pkg::FmtE5M2;
      ndp_dev_pkg::FmtE3M2:  asm_fmt = bp_pkg::FmtE3M2;
      ndp_dev_pkg::FmtE2M3:  asm_fmt = bp_pkg::FmtE2M3;
      ndp_dev_pkg::FmtE2M1:  asm_fmt = bp_pkg::FmtE2M1;
      ndp_dev_pkg::FmtMxfp8: asm_fmt = bp_pkg::FmtMxfp8;
      ndp_dev_pkg::FmtMxfp4: asm_fmt = bp_pkg::FmtMxfp4;
      default:               asm_fmt = bp_pkg::FmtFull;
    endcase
  end

  logic [15:0]  bp_ready;
  logic         eb_ready, ao_valid, ao_last;
  logic [8*OutB-1:0] ao_data;
  logic [OutCW-1:0]  ao_nbytes;
  assign ff_ready  = (bp_ready != '0) || eb_ready;
  assign cmd_valid = rt_q == RtAssemble && !asm_started_q;
  bp_assembler #(.ExpBits(8), .ManBits(7), .Lanes(AsmLanes)) u_asm (
    .clk_i, .rst_ni,
    .cmd_valid_i  (cmd_valid),
    .cmd_ready_o  (cmd_ready),
    .cmd_fmt_i    (asm_fmt),
    .cmd_k_i      (3'(rjob.k)),
    .cmd_guard_i  (rjob.guard),
    .cmd_expbyte_i(rjob.expbyte),
    .cmd_n_i      (rjob.n),
    .bp_valid_i   ({16{ff_valid}}),
    .bp_ready_o   (bp_ready),
    .bp_data_i    (ff_out[16*AsmLanes-1:0]),
    .eb_valid_i   (ff_valid),
    .eb_ready_o   (eb_ready),
    .eb_data_i    (ff_out[FW-1:16*AsmLanes]),
    .out_valid_o  (ao_valid),
    .out_ready_i  (1'b1),
    .out_data_o   (ao_data),
    .out_nbytes_o (ao_nbytes),
    .out_last_o   (ao_last),
    .busy_o       (unused_asm_busy)
  );

  // Region bytes into 64-byte chunk-buffer words
  logic [7:0]   oq_count;
  logic [6:0]   oq_pop;
  logic [511:0] oq_head;
  logic [RcbAw-1:0] rcb_w_q;
  lz4_byteq #(.Depth(128), .PushW(OutB), .PopW(64)) u_outq (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (ao_valid ? ao_nbytes : '0),
    .push_data_i(ao_data),
    .pop_cnt_i  (oq_pop),
    .head_o     (oq_head),
    .count_o    (oq_count)
  );
  assign oq_pop     = (oq_count >= 8'd64) ? 7'd64 : (flush_q ? 7'(oq_count) : 7'd0);
  assign rcb_we_o   = oq_pop != 7'd0;
  assign rcb_addr_o = rcb_w_q;
  assign rcb_data_o = oq_head;

  assign rt = rt_q == RtDone;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rt_q          <= RtIdle;
      asm_started_q <= 1'b0;
      fd_beat_q     <= '0;
      fd_pend_q     <= 1'b0;
      flush_q       <= 1'b0;
    end else begin
      fd_pend_q <= fd_re;
      if (fd_re) fd_beat_q <= fd_beat_q + 1'b1;
      unique case (rt_q)
        RtIdle: if (rt_valid) begin
          rt_q          <= rt_fail ? RtDone : RtAssemble;
          asm_started_q <= 1'b0;
          fd_beat_q     <= '0;
          flush_q       <= 1'b0;
        end
        RtAssemble: begin
          if (cmd_valid && cmd_ready) asm_started_q <= 1'b1;
          if (ao_valid && ao_last) flush_q <= 1'b1;
          if (flush_q && oq_count <= 8'd64) rt_q <= RtDone;
        end
        RtDone: rt_q <= RtIdle;
        default: rt_q <= RtIdle;
      endcase
    end
  end
  always_ff @(posedge clk_i) begin
    if (rt_q == RtIdle && rt_valid) rcb_w_q <= {sbuf_q[rp], $clog2(BufWords)'(0)};
    else if (rcb_we_o) rcb_w_q <= rcb_w_q + 1'b1;
  end

  // Done and the error log (demand jobs only)
  assign done_o     = rt;
  assign done_buf_o = sbuf_q[rp];
  assign done_err_o = rt_fail;
  always_comb begin
    err_valid_o  = rt && rt_fail && !rjob.prefetch;
    err_o        = '0;
    err_o.code   = be_code_q[rp];
    err_o.plane  = be_plane_q[rp];
    err_o.slot   = 16'(be_slot_q[rp]);
    err_o.tensor = rjob.tensor;
    err_o.chunk  = 64'(rjob.chunk);
    err_o.addr   = 64'(be_addr_q[rp]);
  end

  logic unused_job_fields;
  assign unused_job_fields = ^{djob, rjob};  // each reader uses some fields of the job record

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Lanes >= 1 && Sets >= 1 && Bufs >= 1 && MaxChunkElems >= 2048
                             && (AsmLanes == 16 || AsmLanes == 32)
                             && (MaxChunkElems % 2048) == 0 && ndp_dev_pkg::PlaneExpByte == bp_pkg::PlaneExpByte)
  `NDP_ASSERT(job_fifo_room_a, !job_valid_i || job_ready_o)
`ifdef VERILATOR
  `NDP_ASSERT_INIT(job_bits_a, $bits(ndp_dev_pkg::job_t) == ndp_dev_pkg::JobBits)
`endif
  `NDP_ASSERT(fail_has_record_a, !(rt && rt_fail) || be_valid_q[rp])
  logic [BW-1:0] rcb_w_buf, rt_buf;
  assign rcb_w_buf = BW'(rcb_w_q >> $clog2(BufWords));
  assign rt_buf    = sbuf_q[rp];
  `NDP_ASSERT(rcb_in_buffer_a, !rcb_we_o || rcb_w_buf == rt_buf)
  `NDP_ASSERT(no_block_of_failed_index_a, !disp_blk || !disp_err)
endmodule
