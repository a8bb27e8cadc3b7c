// ndp_dev_chunk: the chunk engine of ndp_device. For one job (tensor, chunk, region) it fetches
// the chunk's plane-index entry from DRAM (and the next chunk's, which bounds the last block),
// checks it (spec 7.5 `Index`), hands every plane block the region fetches to a free decode lane
// (ndp_dev_lane; the lanes fetch and decode in parallel and write the staging banks), and when all
// blocks are intact runs bp_assembler over the staged planes and writes the region bytes of the
// chunk as 64-byte words into the chunk buffer the job names. Reports done with an error flag;
// errors are logged with tensor, chunk, slot, plane and DRAM address.
//
/// Registers: the job, the index-entry buffer (four 64-byte lines), the block bounds of every
/// slot, the dispatch/wait counters, the staging banks (16 bit-plane banks and one EXPBYTE bank,
/// ram_1r1w), the assembler feed (a RAM read stage and a 4-entry fifo_sync), the assembler, and
/// the byte queue that packs its output into chunk-buffer words.
`include "ndp_assert.svh"

module ndp_dev_chunk #(
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned Bufs          = 2,      // chunk buffers (the RAM is outside)
  parameter int unsigned DramAw        = 30,
  localparam int unsigned BpWords  = MaxChunkElems / 256,  // 32-byte words of a bit-plane bank
  localparam int unsigned EbWords  = MaxChunkElems / 32,   // words of the EXPBYTE bank
  localparam int unsigned BankAw   = $clog2(EbWords),
  localparam int unsigned BufWords = MaxChunkElems * 2 / 64, // 64-byte words of one chunk buffer
  localparam int unsigned RcbAw    = $clog2(Bufs * BufWords),
  localparam int unsigned LW       = (Lanes > 1) ? $clog2(Lanes) : 1
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // job
  input  logic                 job_valid_i,
  output logic                 job_ready_o,
  input  ndp_dev_pkg::job_t    job_i,
  input  logic [$clog2(Bufs)-1:0] job_buf_i,
  output logic                 done_o,        // one cycle
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
  input  logic [Lanes*BankAw-1:0] st_addr_i,
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
  typedef enum logic [2:0] {CkIdle, CkIndexFetch, CkIndexWait, CkBounds, CkDispatch, CkAssemble,
                            CkDone} ck_e;
  ck_e               st_q;
  ndp_dev_pkg::job_t job_q;
  logic [$clog2(Bufs)-1:0] buf_q;
  logic              err_q;

  assign job_ready_o = st_q == CkIdle;

  // ---------------------------------------------------------------------------------------------
  // Index entry: E = 8 + 4 P bytes at index + k E; the next entry too unless this is the last chunk
  logic [7:0]   ent_bytes;
  logic [8:0]   ent_span;
  logic [39:0]  ent_addr;
  logic [33:0]  ix_first, ix_last;
  logic [2:0]   ix_req_q, ix_got_q;
  logic [511:0] ibuf_q [4];
  logic [2047:0] ibuf, ent;

  assign ent_bytes = 8'd8 + (job_q.slots << 2);
  assign ent_addr  = job_q.index + job_q.chunk * 40'(ent_bytes);
  assign ix_first  = ent_addr[39:6];
  assign ent_span  = job_q.last ? {1'b0, ent_bytes} : {ent_bytes, 1'b0};
  assign ix_last   = 34'((ent_addr + 40'(ent_span) - 40'd1) >> 6);
  assign ix_ar_valid_o = st_q == CkIndexFetch;
  assign ix_ar_line_o  = ix_first + 34'(ix_req_q);
  assign ibuf = {ibuf_q[3], ibuf_q[2], ibuf_q[1], ibuf_q[0]};
  assign ent  = ibuf >> {ent_addr[5:0], 3'b000};

  // Block bounds of every slot (bf16: 9 or 16 slots).
  logic [63:0] coff, noff;
  logic [41:0] cbase, bstart [16], bend [16];   // wide enough that no sum wraps
  logic [15:0] slot_bad;
  logic        ix_out;                          // the entries reach past the DRAM end
  assign coff  = ent[63:0];
  assign noff  = job_q.expbyte ? ent[44*8 +: 64] : ent[72*8 +: 64];
  assign cbase = 42'(job_q.image) + 42'(coff[39:0]);
  assign ix_out = 42'(ent_addr) + 42'(ent_span) > 42'(64'(1) << DramAw);
  always_comb begin
    for (int unsigned s = 0; s < 16; s++) begin
      logic [41:0] len;
      logic        last_slot;
      last_slot = 8'(s + 1) >= job_q.slots;
      bstart[s] = cbase + 42'(ent[64 + 32*s +: 32]);
      if (!last_slot) bend[s] = cbase + 42'(ent[64 + 32*(s+1) +: 32]);
      else if (job_q.last) bend[s] = 42'(job_q.data_end);
      else bend[s] = 42'(job_q.image) + 42'(noff[39:0]);
      len = bend[s] - bstart[s];
      // spec 7.6: start < end, 13..65548 bytes, inside the tensor data (a chunk offset of 2^40 or
      // more lies past every DRAM, like the model's 64-bit sums)
      slot_bad[s] = ix_out || bstart[s] >= bend[s] || len < 42'd13 || len > 42'd65548
                 || bend[s] > 42'(job_q.data_end) || coff[63:40] != '0
                 || (last_slot && !job_q.last && noff[63:40] != '0);
    end
  end

  // The assembler's format (job_t keeps bp_pkg::fmt_e's encoding as bits).
  bp_pkg::fmt_e asm_fmt;
  always_comb begin
    unique case (job_q.fmt)
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

  // Slots the region fetches: sign, exponent, top t mantissa planes.
  logic [3:0]  m_kept, t_fetch;
  logic [15:0] need;
  always_comb begin
    unique case (job_q.fmt)
      ndp_dev_pkg::FmtFull:  m_kept = 4'd7;
      ndp_dev_pkg::FmtEmK:   m_kept = job_q.k;
      ndp_dev_pkg::FmtE4M3, ndp_dev_pkg::FmtE2M3, ndp_dev_pkg::FmtMxfp8: m_kept = 4'd3;
      ndp_dev_pkg::FmtE5M2, ndp_dev_pkg::FmtE3M2: m_kept = 4'd2;
      default:          m_kept = 4'd1;
    endcase
    t_fetch = (m_kept + 4'(job_q.guard) > 4'd7) ? 4'd7 : m_kept + 4'(job_q.guard);
    need = '0;
    for (int unsigned s = 0; s < 16; s++) begin
      // mantissa rank of slot s (0 = MSB): expbyte slots 2.., bitplane slots 9..
      logic [3:0] r;
      r = job_q.expbyte ? 4'(s - 2) : 4'(s - 9);
      if (job_q.expbyte) need[s] = (s < 2) || (s < 9 && r < t_fetch);
      else               need[s] = (s < 9) || r < t_fetch;
    end
  end

  function automatic logic [7:0] plane_of(input logic expbyte, input logic [3:0] s);
    if (expbyte) plane_of = (s == 4'd0) ? 8'd15 : (s == 4'd1) ? bp_pkg::PlaneExpByte : {4'd0, 4'd8 - s};
    else plane_of = {4'd0, 4'd15 - s};
  endfunction

  // ---------------------------------------------------------------------------------------------
  // Dispatch to lanes and collect their done beats
  logic [4:0]    slot_q;         // next slot to dispatch (16 = all dispatched)
  logic [4:0]    pending_q;      // blocks dispatched, done not yet seen
  logic [3:0]    lane_slot_q [Lanes];
  logic [LW-1:0] free_lane;
  logic          have_free, disp_fire, slot_need;
  logic [7:0]    dplane;

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
  assign slot_need = slot_q < 5'(job_q.slots) && need[slot_q[3:0]];
  assign disp_fire = st_q == CkDispatch && slot_q < 5'(job_q.slots) && slot_need && have_free;
  assign dplane    = plane_of(job_q.expbyte, slot_q[3:0]);

  always_comb begin
    as_valid_o    = '0;
    as_valid_o[free_lane] = disp_fire;
    as_start_o    = bstart[slot_q[3:0]][39:0];
    as_end_o      = bend[slot_q[3:0]][39:0];
    as_block_id_o = job_q.chunk[15:0];
    as_plane_o    = dplane;
    as_raw_o      = (dplane == bp_pkg::PlaneExpByte) ? 17'(job_q.n) : 17'((job_q.n + 32'd7) >> 3);
    as_pad_o      = (dplane == bp_pkg::PlaneExpByte || job_q.n[2:0] == 3'd0) ? 8'h00
                  : ~((8'd1 << job_q.n[2:0]) - 8'd1);
    as_bank_o     = (dplane == bp_pkg::PlaneExpByte) ? 5'd16 : dplane[4:0];
  end

  // done beats: one lane per cycle (lowest first)
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
    dn_ready_o[dn_lane] = dn_any && st_q == CkDispatch;
    dn_code = dn_code_i[dn_lane * 8 +: 8];
  end

  // ---------------------------------------------------------------------------------------------
  // Staging banks: bank b < 16 holds bit-plane b, bank 16 the EXPBYTE plane
  logic [$clog2(BpWords)-1:0] fd_addr_bp;
  logic [BankAw-1:0] fd_addr_eb;
  logic              fd_re;
  logic [255:0]      bp_word [16];
  logic [255:0]      eb_word;

  for (genvar b = 0; b < 17; b++) begin : gen_bank
    logic              we;
    logic [BankAw-1:0] wa;
    logic [255:0]      wd;
    always_comb begin
      we = 1'b0;
      wa = '0;
      wd = '0;
      for (int unsigned i = 0; i < Lanes; i++) begin
        if (st_we_i[i] && st_bank_i[i*5 +: 5] == 5'(b)) begin
          we = 1'b1;
          wa = st_addr_i[i*BankAw +: BankAw];
          wd = st_data_i[i*256 +: 256];
        end
      end
    end
    if (b < 16) begin : gen_bp
      ram_1r1w #(.Width(256), .Depth(BpWords)) u_ram (
        .clk_i, .rst_ni,
        .we_i(we), .waddr_i($clog2(BpWords)'(wa)), .wlane_i(1'b1), .wdata_i(wd),
        .re_i(fd_re), .raddr_i(fd_addr_bp), .rdata_o(bp_word[b])
      );
      logic unused_wa_hi;
      assign unused_wa_hi = ^wa[BankAw-1:$clog2(BpWords)];
    end else begin : gen_eb
      ram_1r1w #(.Width(256), .Depth(EbWords)) u_ram (
        .clk_i, .rst_ni,
        .we_i(we), .waddr_i(wa), .wlane_i(1'b1), .wdata_i(wd),
        .re_i(fd_re), .raddr_i(fd_addr_eb), .rdata_o(eb_word)
      );
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assembler feed: beat j = bits (j%16)*16 of bit-plane word j/16, bytes (j%2)*16 of EXPBYTE word j/2
  localparam int unsigned FW = 16 * 16 + 128;
  logic [31:0]  fd_beat_q, fd_beats;
  logic         fd_pend_q;
  logic [3:0]   fd_sel_q;
  logic         ff_valid, ff_ready, ff_push;
  logic [FW-1:0] ff_in, ff_out;
  logic [2:0]   ff_cnt;
  logic         cmd_valid, cmd_ready, asm_started_q, unused_ff_ready, unused_asm_busy;

  assign fd_beats   = (job_q.n + 32'd15) >> 4;
  assign fd_re      = st_q == CkAssemble && asm_started_q && fd_beat_q < fd_beats
                   && 32'(ff_cnt) + 32'(fd_pend_q) < 32'd4;
  assign fd_addr_bp = $clog2(BpWords)'(fd_beat_q >> 4);
  assign fd_addr_eb = BankAw'(fd_beat_q >> 1);
  assign ff_push    = fd_pend_q;
  always_comb begin
    for (int unsigned b = 0; b < 16; b++) ff_in[b*16 +: 16] = bp_word[b][fd_sel_q * 16 +: 16];
    ff_in[256 +: 128] = eb_word[fd_sel_q[0] * 128 +: 128];
  end

  fifo_sync #(.Width(FW), .Depth(4)) u_feed (
    .clk_i, .rst_ni,
    .in_valid_i (ff_push),
    .in_ready_o (unused_ff_ready),
    .in_data_i  (ff_in),
    .out_valid_o(ff_valid),
    .out_ready_i(ff_ready),
    .out_data_o (ff_out),
    .count_o    (ff_cnt)
  );

  logic [15:0]  bp_ready;
  logic         eb_ready, ao_valid, ao_last;
  logic [255:0] ao_data;
  logic [5:0]   ao_nbytes;
  assign ff_ready  = (bp_ready != '0) || eb_ready;
  assign cmd_valid = st_q == CkAssemble && !asm_started_q;

  bp_assembler #(.ExpBits(8), .ManBits(7), .Lanes(16)) u_asm (
    .clk_i, .rst_ni,
    .cmd_valid_i  (cmd_valid),
    .cmd_ready_o  (cmd_ready),
    .cmd_fmt_i    (asm_fmt),
    .cmd_k_i      (3'(job_q.k)),
    .cmd_guard_i  (job_q.guard),
    .cmd_expbyte_i(job_q.expbyte),
    .cmd_n_i      (job_q.n),
    .bp_valid_i   ({16{ff_valid}}),
    .bp_ready_o   (bp_ready),
    .bp_data_i    (ff_out[255:0]),
    .eb_valid_i   (ff_valid),
    .eb_ready_o   (eb_ready),
    .eb_data_i    (ff_out[383:256]),
    .out_valid_o  (ao_valid),
    .out_ready_i  (1'b1),
    .out_data_o   (ao_data),
    .out_nbytes_o (ao_nbytes),
    .out_last_o   (ao_last),
    .busy_o       (unused_asm_busy)
  );

  // Region bytes into 64-byte chunk-buffer words.
  logic [7:0]   oq_count;
  logic [6:0]   oq_pop;
  logic [511:0] oq_head;
  logic         flush_q;
  logic [RcbAw-1:0] rcb_w_q;
  lz4_byteq #(.Depth(128), .PushW(32), .PopW(64)) u_outq (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (ao_valid ? ao_nbytes : 6'd0),
    .push_data_i(ao_data),
    .pop_cnt_i  (oq_pop),
    .head_o     (oq_head),
    .count_o    (oq_count)
  );
  assign oq_pop     = (oq_count >= 8'd64) ? 7'd64 : (flush_q ? 7'(oq_count) : 7'd0);
  assign rcb_we_o   = oq_pop != 7'd0;
  assign rcb_addr_o = rcb_w_q;
  assign rcb_data_o = oq_head;

  // ---------------------------------------------------------------------------------------------
  // Control
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q          <= CkIdle;
      err_q         <= 1'b0;
      ix_req_q      <= '0;
      ix_got_q      <= '0;
      slot_q        <= '0;
      pending_q     <= '0;
      asm_started_q <= 1'b0;
      fd_beat_q     <= '0;
      fd_pend_q     <= 1'b0;
      flush_q       <= 1'b0;
    end else begin
      fd_pend_q <= fd_re;
      if (fd_re) fd_beat_q <= fd_beat_q + 32'd1;
      if (ix_r_valid_i) ix_got_q <= ix_got_q + 3'd1;
      if (disp_fire) slot_q <= slot_q + 5'd1;
      else if (st_q == CkDispatch && slot_q < 5'(job_q.slots) && !slot_need) slot_q <= slot_q + 5'd1;
      pending_q <= pending_q + 5'(disp_fire) - 5'(dn_valid_i[dn_lane] && dn_ready_o[dn_lane]);
      if (dn_fire && dn_code != 8'd0) err_q <= 1'b1;
      unique case (st_q)
        CkIdle: if (job_valid_i) begin
          st_q     <= CkIndexFetch;
          err_q    <= 1'b0;
          ix_req_q <= '0;
          ix_got_q <= '0;
        end
        CkIndexFetch: if (ix_ar_ready_i) begin
          ix_req_q <= ix_req_q + 3'd1;
          if (ix_first + 34'(ix_req_q) == ix_last) st_q <= CkIndexWait;
        end
        CkIndexWait: if (ix_got_q == ix_req_q) st_q <= CkBounds;
        CkBounds: begin
          slot_q    <= '0;
          pending_q <= '0;
          if ((slot_bad & need) != '0) begin
            err_q <= 1'b1;
            st_q  <= CkDone;
          end else begin
            st_q <= CkDispatch;
          end
        end
        CkDispatch: if (slot_q >= 5'(job_q.slots) && pending_q == '0 && !disp_fire) begin
          if (err_q) st_q <= CkDone;
          else begin
            st_q          <= CkAssemble;
            asm_started_q <= 1'b0;
            fd_beat_q     <= '0;
            flush_q       <= 1'b0;
          end
        end
        CkAssemble: begin
          if (cmd_valid && cmd_ready) asm_started_q <= 1'b1;
          if (ao_valid && ao_last) flush_q <= 1'b1;
          if (flush_q && oq_count <= 8'd64) st_q <= CkDone;
        end
        CkDone: st_q <= CkIdle;
        default: st_q <= CkIdle;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_q == CkIdle && job_valid_i) begin
      job_q <= job_i;
      buf_q <= job_buf_i;
    end
    if (ix_r_valid_i) ibuf_q[ix_got_q[1:0]] <= ix_r_data_i;
    if (fd_re) fd_sel_q <= fd_beat_q[3:0];
    if (disp_fire) lane_slot_q[free_lane] <= slot_q[3:0];
    if (st_q == CkBounds) rcb_w_q <= RcbAw'(buf_q) * RcbAw'(BufWords);
    else if (rcb_we_o) rcb_w_q <= rcb_w_q + 1'b1;
  end

  // Error log: an index error names the first failing needed slot; block errors are collected
  // while the lanes finish (in any order) and the lowest failing slot is logged at the end, as the
  // model decodes in storage order.
  logic       dn_fire, be_valid_q;
  logic [3:0] bad_slot, be_slot_q;
  logic [7:0] be_code_q;
  logic [41:0] be_addr_q;
  assign dn_fire = dn_any && dn_ready_o[dn_lane];
  always_comb begin
    bad_slot = '0;
    for (int s = 15; s >= 0; s--) if (slot_bad[s] && need[s]) bad_slot = 4'(s);
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) be_valid_q <= 1'b0;
    else if (st_q == CkIdle) be_valid_q <= 1'b0;
    else if (dn_fire && dn_code != 8'd0 && (!be_valid_q || lane_slot_q[dn_lane] < be_slot_q)) be_valid_q <= 1'b1;
  end
  always_ff @(posedge clk_i) begin
    if (dn_fire && dn_code != 8'd0 && (!be_valid_q || lane_slot_q[dn_lane] < be_slot_q)) begin
      be_slot_q <= lane_slot_q[dn_lane];
      be_code_q <= dn_code;
      be_addr_q <= bstart[lane_slot_q[dn_lane]];
    end
  end
  always_comb begin
    err_valid_o  = 1'b0;
    err_o        = '0;
    err_o.tensor = job_q.tensor;
    err_o.chunk  = 64'(job_q.chunk);
    if (st_q == CkBounds && (slot_bad & need) != '0) begin
      err_valid_o = 1'b1;
      err_o.code  = ndp_dev_pkg::ErrIndex;
      err_o.slot  = 16'(bad_slot);
      err_o.plane = plane_of(job_q.expbyte, bad_slot);
      err_o.addr  = 64'(ent_addr);
    end else if (st_q == CkDone && be_valid_q) begin
      err_valid_o = 1'b1;
      err_o.code  = be_code_q;
      err_o.slot  = 16'(be_slot_q);
      err_o.plane = plane_of(job_q.expbyte, be_slot_q);
      err_o.addr  = 64'(be_addr_q);
    end
  end
  assign done_o      = st_q == CkDone;
  assign done_err_o  = err_q;
  assign cnt_block_o = dn_fire;

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Lanes >= 1 && MaxChunkElems >= 2048 && (MaxChunkElems % 2048) == 0)
  `NDP_ASSERT(rcb_in_buffer_a, !rcb_we_o || 32'(rcb_w_q) < (32'(buf_q) + 32'd1) * BufWords)
endmodule
