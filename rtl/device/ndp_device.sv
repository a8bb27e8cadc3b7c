// ndp_device: the CXL-NDP controller (docs/spec.md section 7, docs/device.md). An AXI4 slave host
// port with 64-byte beats (control, store and region windows), an AXI4 master DRAM port, and
// between them: the control block (ndp_dev_csr), the write path (ndp_dev_wr), the read path and
// chunk-buffer tags (ndp_dev_rd), the chunk engine (ndp_dev_chunk: index fetch, block dispatch,
// staging, bp_assembler) and Lanes decode lanes (ndp_dev_lane, each a codec_lane_dec with LZ4 and
// ZSTD). The chunk buffers (Bufs x one chunk's region bytes) are a ram_1r1w here. Several chunks
// decode at once (Sets staging sets, lanes shared), with sequential prefetch (spec 7.6).
//
/// DRAM read IDs: lane i uses ID i, the index fetch ID Lanes, store-window reads ID Lanes + 1; the
/// AR channel is shared round-robin (rr_arbiter). Only store-window reads can stall R (lanes and
/// the index buffer always accept their data). Registered boundaries: host R and B come from
/// FIFOs/registers; AR/AW are queued in FIFOs.
`include "ndp_assert.svh"

module ndp_device #(
  parameter int unsigned IdW           = 8,
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxTensors    = 64,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned DramAw        = 30,
  parameter int unsigned Bufs          = 8,      // chunk buffers C (one chunk's region bytes each)
  parameter int unsigned Sets          = 4,      // staging sets S: chunks decoded at once
  parameter int unsigned MaxPrefetch   = 6,      // <= Bufs - 2
  parameter int unsigned AsmLanes      = 32,     // assembler elements per cycle (16 or 32)
  parameter int unsigned Track         = 64,     // read tracker entries (bursts held; a power of two)
  localparam int unsigned DIdW     = $clog2(Lanes + 2),
  localparam int unsigned BW       = (Bufs > 1) ? $clog2(Bufs) : 1,
  localparam int unsigned BufWords = MaxChunkElems * 2 / 64,
  localparam int unsigned RcbAw    = BW + $clog2(BufWords),
  localparam int unsigned BankAw   = $clog2(MaxChunkElems / 32)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  // host port (AXI4 slave)
  input  logic            s_aw_valid_i,
  output logic            s_aw_ready_o,
  input  logic [IdW-1:0]  s_aw_id_i,
  input  logic [47:0]     s_aw_addr_i,
  input  logic [7:0]      s_aw_len_i,
  input  logic [2:0]      s_aw_size_i,
  input  logic [1:0]      s_aw_burst_i,
  input  logic            s_w_valid_i,
  output logic            s_w_ready_o,
  input  logic [511:0]    s_w_data_i,
  input  logic [63:0]     s_w_strb_i,
  input  logic            s_w_last_i,
  output logic            s_b_valid_o,
  input  logic            s_b_ready_i,
  output logic [IdW-1:0]  s_b_id_o,
  output logic [1:0]      s_b_resp_o,
  input  logic            s_ar_valid_i,
  output logic            s_ar_ready_o,
  input  logic [IdW-1:0]  s_ar_id_i,
  input  logic [47:0]     s_ar_addr_i,
  input  logic [7:0]      s_ar_len_i,
  input  logic [2:0]      s_ar_size_i,
  input  logic [1:0]      s_ar_burst_i,
  output logic            s_r_valid_o,
  input  logic            s_r_ready_i,
  output logic [IdW-1:0]  s_r_id_o,
  output logic [511:0]    s_r_data_o,
  output logic [1:0]      s_r_resp_o,
  output logic            s_r_last_o,
  // DRAM port (AXI4 master, INCR bursts of 64-byte beats)
  output logic            m_aw_valid_o,
  input  logic            m_aw_ready_i,
  output logic [DramAw-1:0] m_aw_addr_o,
  output logic [7:0]      m_aw_len_o,
  output logic            m_w_valid_o,
  input  logic            m_w_ready_i,
  output logic [511:0]    m_w_data_o,
  output logic [63:0]     m_w_strb_o,
  output logic            m_w_last_o,
  input  logic            m_b_valid_i,
  output logic            m_b_ready_o,
  input  logic [1:0]      m_b_resp_i,
  output logic            m_ar_valid_o,
  input  logic            m_ar_ready_i,
  output logic [DIdW-1:0] m_ar_id_o,
  output logic [DramAw-1:0] m_ar_addr_o,
  output logic [7:0]      m_ar_len_o,
  input  logic            m_r_valid_i,
  output logic            m_r_ready_o,
  input  logic [DIdW-1:0] m_r_id_i,
  input  logic [511:0]    m_r_data_i,
  input  logic [1:0]      m_r_resp_i,
  input  logic            m_r_last_i
);
  localparam int unsigned TW = $clog2(MaxTensors);
  localparam int unsigned NReq = Lanes + 2;

  // ---------------------------------------------------------------------------------------------
  // Control block
  logic               cw_valid, cw_decerr, cr_valid, cr_decerr, dsc_valid, lk_hit;
  logic [33:0]        cw_line, cr_line;
  logic [511:0]       cw_data, cr_data;
  logic [63:0]        cw_strb;
  logic [TW-1:0]      dsc_t, lk_t;
  logic [18:0]        lk_slot;
  ndp_dev_pkg::desc_t dsc;
  logic               enable, commit_busy, flush;
  logic [7:0]         pf_depth, track;
  logic [MaxTensors-1:0] mapped;
  logic               decoding;
  logic [ndp_dev_pkg::NumCnt-1:0] cnt_inc, cnt_inc2;
  logic               rd_err_valid, ck_err_valid;
  ndp_dev_pkg::err_t  rd_err, ck_err, wr_err;
  logic               wr_err_valid;

  ndp_dev_csr #(.MaxTensors(MaxTensors), .Lanes(Lanes), .MaxChunkElems(MaxChunkElems),
                .DramAw(DramAw), .Bufs(Bufs), .Sets(Sets), .MaxPrefetch(MaxPrefetch),
                .Track(Track)) u_csr (
    .clk_i, .rst_ni,
    .wr_valid_i(cw_valid), .wr_line_i(cw_line), .wr_data_i(cw_data), .wr_strb_i(cw_strb),
    .wr_decerr_o(cw_decerr),
    .rd_valid_i(cr_valid), .rd_line_i(cr_line), .rd_data_o(cr_data), .rd_decerr_o(cr_decerr),
    .dsc_valid_i(dsc_valid), .dsc_t_i(dsc_t), .dsc_o(dsc),
    .lk_slot_i(lk_slot), .lk_hit_o(lk_hit), .lk_t_o(lk_t),
    .enable_o(enable), .commit_busy_o(commit_busy), .flush_o(flush), .pf_depth_o(pf_depth), .track_o(track),
    .mapped_o(mapped), .decoding_i(decoding),
    .cnt_inc_i(cnt_inc), .cnt_inc2_i(cnt_inc2),
    .err_a_valid_i(rd_err_valid), .err_a_i(rd_err), .err_b_valid_i(ck_err_valid), .err_b_i(ck_err),
    .err_c_valid_i(wr_err_valid), .err_c_i(wr_err)
  );

  // ---------------------------------------------------------------------------------------------
  // Write path
  logic        dw_aw_valid;
  logic [33:0] dw_aw_line;
  logic        cnt_wr_beat, cnt_wr_decerr, cnt_wr_slverr;
  ndp_dev_wr #(.IdW(IdW), .DramAw(DramAw)) u_wr (
    .clk_i, .rst_ni,
    .aw_valid_i(s_aw_valid_i), .aw_ready_o(s_aw_ready_o), .aw_id_i(s_aw_id_i), .aw_addr_i(s_aw_addr_i),
    .aw_len_i(s_aw_len_i), .aw_size_i(s_aw_size_i), .aw_burst_i(s_aw_burst_i),
    .w_valid_i(s_w_valid_i), .w_ready_o(s_w_ready_o), .w_data_i(s_w_data_i), .w_strb_i(s_w_strb_i),
    .w_last_i(s_w_last_i),
    .b_valid_o(s_b_valid_o), .b_ready_i(s_b_ready_i), .b_id_o(s_b_id_o), .b_resp_o(s_b_resp_o),
    .csr_wr_valid_o(cw_valid), .csr_wr_line_o(cw_line), .csr_wr_data_o(cw_data),
    .csr_wr_strb_o(cw_strb), .csr_wr_decerr_i(cw_decerr),
    .dw_aw_valid_o(dw_aw_valid), .dw_aw_ready_i(m_aw_ready_i), .dw_aw_line_o(dw_aw_line),
    .dw_aw_len_o(m_aw_len_o),
    .dw_w_valid_o(m_w_valid_o), .dw_w_ready_i(m_w_ready_i), .dw_w_data_o(m_w_data_o),
    .dw_w_strb_o(m_w_strb_o), .dw_w_last_o(m_w_last_o),
    .dw_b_valid_i(m_b_valid_i), .dw_b_ready_o(m_b_ready_o), .dw_b_resp_i(m_b_resp_i),
.err_o(wr_err), .err_valid_o(wr_err_valid), .cnt_wr_beat_o(cnt_wr_beat), .cnt_wr_decerr_o(cnt_wr_decerr), .cnt_wr_slverr_o(cnt_wr_slverr)
  );
  assign m_aw_valid_o = dw_aw_valid;
  assign m_aw_addr_o  = DramAw'({dw_aw_line, 6'd0});

  // ---------------------------------------------------------------------------------------------
  // Read path, chunk engine, chunk buffers
  logic        sr_ar_valid, sr_ar_ready, sr_r_valid, sr_r_ready;
  logic [33:0] sr_ar_line;
  logic [7:0]  sr_ar_len;
  logic        job_valid, job_ready, done, done_err, rcb_re, rcb_we, cnt_hit, cnt_block;
  ndp_dev_pkg::job_t job;
  logic [BW-1:0] job_buf, done_buf;
  logic [RcbAw-1:0] rcb_raddr, rcb_waddr;
  logic [511:0] rcb_rdata, rcb_wdata;

  ndp_dev_rd #(.IdW(IdW), .MaxTensors(MaxTensors), .MaxChunkElems(MaxChunkElems), .Bufs(Bufs),
               .DramAw(DramAw), .Track(Track)) u_rd (
    .clk_i, .rst_ni,
    .ar_valid_i(s_ar_valid_i), .ar_ready_o(s_ar_ready_o), .ar_id_i(s_ar_id_i), .ar_addr_i(s_ar_addr_i),
    .ar_len_i(s_ar_len_i), .ar_size_i(s_ar_size_i), .ar_burst_i(s_ar_burst_i),
    .r_valid_o(s_r_valid_o), .r_ready_i(s_r_ready_i), .r_id_o(s_r_id_o), .r_data_o(s_r_data_o),
    .r_resp_o(s_r_resp_o), .r_last_o(s_r_last_o),
    .csr_rd_valid_o(cr_valid), .csr_rd_line_o(cr_line), .csr_rd_data_i(cr_data),
    .csr_rd_decerr_i(cr_decerr),
    .dsc_valid_o(dsc_valid), .dsc_t_o(dsc_t), .dsc_i(dsc),
    .lk_slot_o(lk_slot), .lk_hit_i(lk_hit), .lk_t_i(lk_t),
    .enable_i(enable), .commit_busy_i(commit_busy), .flush_i(flush), .pf_depth_i(pf_depth), .track_i(track),
    .mapped_i(mapped), .decoding_o(decoding),
    .sr_ar_valid_o(sr_ar_valid), .sr_ar_ready_i(sr_ar_ready), .sr_ar_line_o(sr_ar_line),
    .sr_ar_len_o(sr_ar_len), .sr_r_valid_i(sr_r_valid), .sr_r_ready_o(sr_r_ready),
    .sr_r_data_i(m_r_data_i), .sr_r_resp_i(m_r_resp_i),
    .job_valid_o(job_valid), .job_ready_i(job_ready), .job_o(job), .job_buf_o(job_buf),
    .done_i(done), .done_buf_i(done_buf), .done_err_i(done_err),
    .rcb_re_o(rcb_re), .rcb_addr_o(rcb_raddr), .rcb_data_i(rcb_rdata),
    .err_valid_o(rd_err_valid), .err_o(rd_err), .cnt_hit_o(cnt_hit)
  );

  ram_1r1w #(.Width(512), .Depth(Bufs * BufWords)) u_rcb (
    .clk_i, .rst_ni,
    .we_i(rcb_we), .waddr_i(rcb_waddr), .wlane_i(1'b1), .wdata_i(rcb_wdata),
    .re_i(rcb_re), .raddr_i(rcb_raddr), .rdata_o(rcb_rdata)
  );

  logic              ix_ar_valid, ix_ar_ready, ix_r_valid;
  logic [33:0]       ix_ar_line;
  logic [Lanes-1:0]  as_valid, as_ready, dn_valid, dn_ready, st_we, l_ar_valid, l_ar_ready, l_r_valid;
  logic [39:0]       as_start, as_end;
  logic [15:0]       as_block_id;
  logic [7:0]        as_plane, as_pad;
  logic [16:0]       as_raw;
  logic [4:0]        as_bank;
  logic [Lanes*8-1:0]   dn_code;
  logic [Lanes*5-1:0]   st_bank;
  logic [Lanes*BankAw-1:0] st_addr;
  logic [Lanes*256-1:0] st_data;
  logic [Lanes*34-1:0]  l_ar_line;
  logic [Lanes*8-1:0]   l_ar_len;

  ndp_dev_chunk #(.Lanes(Lanes), .MaxChunkElems(MaxChunkElems), .Bufs(Bufs), .Sets(Sets),
                  .DramAw(DramAw), .AsmLanes(AsmLanes)) u_chunk (
    .clk_i, .rst_ni,
    .job_valid_i(job_valid), .job_ready_o(job_ready), .job_i(job), .job_buf_i(job_buf),
    .done_o(done), .done_buf_o(done_buf), .done_err_o(done_err),
    .ix_ar_valid_o(ix_ar_valid), .ix_ar_ready_i(ix_ar_ready), .ix_ar_line_o(ix_ar_line),
    .ix_r_valid_i(ix_r_valid), .ix_r_data_i(m_r_data_i),
    .as_valid_o(as_valid), .as_ready_i(as_ready), .as_start_o(as_start), .as_end_o(as_end),
    .as_block_id_o(as_block_id), .as_plane_o(as_plane), .as_raw_o(as_raw), .as_pad_o(as_pad),
    .as_bank_o(as_bank),
    .dn_valid_i(dn_valid), .dn_ready_o(dn_ready), .dn_code_i(dn_code),
    .st_we_i(st_we), .st_bank_i(st_bank), .st_addr_i(st_addr), .st_data_i(st_data),
    .rcb_we_o(rcb_we), .rcb_addr_o(rcb_waddr), .rcb_data_o(rcb_wdata),
    .err_valid_o(ck_err_valid), .err_o(ck_err), .cnt_block_o(cnt_block)
  );

  for (genvar i = 0; i < Lanes; i++) begin : gen_lane
    ndp_dev_lane #(.BankAw(BankAw)) u_lane (
      .clk_i, .rst_ni,
      .as_valid_i(as_valid[i]), .as_ready_o(as_ready[i]), .as_start_i(as_start), .as_end_i(as_end),
      .as_block_id_i(as_block_id), .as_plane_i(as_plane), .as_raw_i(as_raw), .as_pad_i(as_pad),
      .as_bank_i(as_bank),
      .ar_valid_o(l_ar_valid[i]), .ar_ready_i(l_ar_ready[i]), .ar_line_o(l_ar_line[i*34 +: 34]),
      .ar_len_o(l_ar_len[i*8 +: 8]),
      .r_valid_i(l_r_valid[i]), .r_data_i(m_r_data_i),
      .st_we_o(st_we[i]), .st_bank_o(st_bank[i*5 +: 5]), .st_addr_o(st_addr[i*BankAw +: BankAw]),
      .st_data_o(st_data[i*256 +: 256]),
      .dn_valid_o(dn_valid[i]), .dn_ready_i(dn_ready[i]), .dn_code_o(dn_code[i*8 +: 8])
    );
  end

  // ---------------------------------------------------------------------------------------------
  // DRAM AR arbitration and R routing
  logic [NReq-1:0] req_valid, req_ready;
  logic [DIdW-1:0] gnt;
  logic [NReq*34-1:0] req_line;
  logic [NReq*8-1:0]  req_len;
  assign req_valid = {sr_ar_valid, ix_ar_valid, l_ar_valid};
  assign req_line  = {sr_ar_line, ix_ar_line, l_ar_line};
  assign req_len   = {sr_ar_len, 8'd0, l_ar_len};
  assign {sr_ar_ready, ix_ar_ready, l_ar_ready} = req_ready;

  rr_arbiter #(.N(NReq)) u_ar_arb (
    .clk_i, .rst_ni,
    .in_valid_i(req_valid), .in_ready_o(req_ready),
    .out_valid_o(m_ar_valid_o), .out_ready_i(m_ar_ready_i), .idx_o(gnt)
  );
  assign m_ar_id_o   = gnt;
  assign m_ar_addr_o = DramAw'({req_line[gnt * 34 +: 34], 6'd0});
  assign m_ar_len_o  = req_len[gnt * 8 +: 8];

  always_comb begin
    l_r_valid  = '0;
    ix_r_valid = 1'b0;
    sr_r_valid = 1'b0;
    m_r_ready_o = 1'b1;
    for (int unsigned i = 0; i < Lanes; i++) if (m_r_id_i == DIdW'(i)) l_r_valid[i] = m_r_valid_i;
    if (32'(m_r_id_i) < Lanes) begin
    end else if (32'(m_r_id_i) == Lanes) ix_r_valid = m_r_valid_i;
    else begin
      sr_r_valid  = m_r_valid_i;
      m_r_ready_o = sr_r_ready;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Counters
  logic unused_r_last;
  assign unused_r_last = m_r_last_i;  // bursts are counted by the requesters
  always_comb begin
    cnt_inc = '0;
    cnt_inc[ndp_dev_pkg::CntCycles]    = 1'b1;
    cnt_inc[ndp_dev_pkg::CntHostRd]    = s_r_valid_o && s_r_ready_i;
    cnt_inc[ndp_dev_pkg::CntHostWr]    = cnt_wr_beat;
    cnt_inc[ndp_dev_pkg::CntDecErr]    = s_r_valid_o && s_r_ready_i && s_r_resp_o == ndp_dev_pkg::RespDecErr;
    cnt_inc[ndp_dev_pkg::CntSlvErr]    = s_r_valid_o && s_r_ready_i && s_r_resp_o == ndp_dev_pkg::RespSlvErr;
    cnt_inc[ndp_dev_pkg::CntDramRd]    = m_r_valid_i && m_r_ready_o;
    cnt_inc[ndp_dev_pkg::CntDramWr]    = m_w_valid_o && m_w_ready_i;
    cnt_inc[ndp_dev_pkg::CntChunks]    = job_valid && job_ready;
    cnt_inc[ndp_dev_pkg::CntChunkHits] = cnt_hit;
    cnt_inc[ndp_dev_pkg::CntBlocks]    = cnt_block;
    cnt_inc2 = '0;
    cnt_inc2[ndp_dev_pkg::CntDecErr] = cnt_wr_decerr;
    cnt_inc2[ndp_dev_pkg::CntSlvErr] = cnt_wr_slverr;
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions (AXI handshake rules on both ports)
  `NDP_ASSERT_STREAM(s_r_a, s_r_valid_o, s_r_ready_i, {s_r_id_o, s_r_data_o, s_r_resp_o, s_r_last_o})
  `NDP_ASSERT_STREAM(s_b_a, s_b_valid_o, s_b_ready_i, {s_b_id_o, s_b_resp_o})
  `NDP_ASSERT_STREAM(m_ar_a, m_ar_valid_o, m_ar_ready_i, {m_ar_id_o, m_ar_addr_o, m_ar_len_o})
  `NDP_ASSERT_STREAM(m_aw_a, m_aw_valid_o, m_aw_ready_i, {m_aw_addr_o, m_aw_len_o})
  `NDP_ASSERT_STREAM(m_w_a, m_w_valid_o, m_w_ready_i, {m_w_data_o, m_w_strb_o, m_w_last_o})
  `NDP_ASSERT_INIT(params_a, Lanes >= 1 && Lanes <= 16 && DramAw >= 16 && DramAw <= 40)
endmodule
