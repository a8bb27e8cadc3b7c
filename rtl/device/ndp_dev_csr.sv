// ndp_dev_csr: the control window of ndp_device (docs/spec.md 7.3, 7.4): registers, performance
// counters, the error log, the tensor descriptor table and the tensor lookup by base.
//
/// Registers: every register of 7.4, the counters, the first logged error, one 19-bit base and a
/// `mapped` bit per tensor, and the commit walker (writing TENSOR_COUNT checks descriptors
/// 0..T-1 one per two cycles and maps those that pass). The 64-byte descriptors live in a RAM
/// (ram_1r1w, byte lanes). Reads of a register line or a descriptor line answer the cycle after
/// the request. The lookup (`lk_*`) is combinational over the base registers: the highest mapped
/// tensor whose base is at or below the slot.
`include "ndp_assert.svh"

module ndp_dev_csr #(
  parameter int unsigned MaxTensors    = 64,
  parameter int unsigned Lanes         = 4,
  parameter int unsigned MaxChunkElems = 32768,
  parameter int unsigned DramAw        = 30,     // DRAM bytes = 2^DramAw
  parameter int unsigned Bufs          = 8,      // CAPS2: chunk buffers, staging sets, MaxPrefetch
  parameter int unsigned Sets          = 4,
  parameter int unsigned MaxPrefetch   = 6,
  parameter int unsigned Track         = 64,     // CAPS2: read tracker entries
  localparam int unsigned TW = $clog2(MaxTensors)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  // writes of one 64-byte line of the control window (line = offset / 64)
  input  logic                wr_valid_i,
  input  logic [33:0]         wr_line_i,
  input  logic [511:0]        wr_data_i,
  input  logic [63:0]         wr_strb_i,
  output logic                wr_decerr_o,      // combinational on wr_line_i
  // reads of one line: data the next cycle; rd_decerr_o combinational on rd_line_i
  input  logic                rd_valid_i,
  input  logic [33:0]         rd_line_i,
  output logic [511:0]        rd_data_o,
  output logic                rd_decerr_o,
  // descriptor read for the datapath: line of tensor dsc_t_i the next cycle
  input  logic                dsc_valid_i,
  input  logic [TW-1:0]       dsc_t_i,
  output ndp_dev_pkg::desc_t  dsc_o,
  // tensor lookup by 2 MiB slot of a region-window offset
  input  logic [18:0]         lk_slot_i,
  output logic                lk_hit_o,
  output logic [TW-1:0]       lk_t_o,
  // control
  output logic                enable_o,
  output logic                commit_busy_o,
  output logic                flush_o,          // one cycle: drop cached chunks
  output logic [MaxTensors-1:0] mapped_o,       // accepted descriptors
  output logic [7:0]          pf_depth_o,       // PREFETCH
  output logic [7:0]          track_o,          // TRACK
  input  logic                decoding_i,       // STATUS bit 2: chunk decodes in flight
  // counters: one increment per bit per cycle (DRAM counters count 64-byte beats)
  input  logic [ndp_dev_pkg::NumCnt-1:0] cnt_inc_i,
  input  logic [ndp_dev_pkg::NumCnt-1:0] cnt_inc2_i,   // a second source (write-side responses)
  // errors (a and b may fire together; a is kept first)
  input  logic                err_a_valid_i,
  input  ndp_dev_pkg::err_t   err_a_i,
  input  logic                err_b_valid_i,
  input  ndp_dev_pkg::err_t   err_b_i,
  input  logic                err_c_valid_i,
  input  ndp_dev_pkg::err_t   err_c_i
);
  localparam int unsigned RegLines = ndp_dev_pkg::CsrBytes / 64;
  localparam int unsigned DescLine = ndp_dev_pkg::DescBase / 64;

  // ---------------------------------------------------------------------------------------------
  // Registers
  logic        enable_q, err_valid_q;
  logic [31:0] tcount_q, rejected_q;
  logic [63:0] err_count_q;
  ndp_dev_pkg::err_t err_q;
  logic [63:0] cnt_q [ndp_dev_pkg::NumCnt];
  logic [18:0] base_q [MaxTensors];
  logic [MaxTensors-1:0] mapped_q;

  logic        wr_reg, wr_desc;
  logic [TW-1:0] wr_t;
  assign wr_reg  = wr_line_i < 34'(RegLines);
  assign wr_desc = wr_line_i >= 34'(DescLine) && wr_line_i < 34'(DescLine) + 34'(MaxTensors);
  assign wr_t    = TW'(wr_line_i - 34'(DescLine));
  assign wr_decerr_o = !wr_reg && !wr_desc;

  // A register of the written line is written when all 8 of its strobes are set (line 0 holds
  // registers 0..7, line 1 registers 8..15, ...).
  function automatic logic reg_we(input logic v, input logic [33:0] line, input logic [63:0] strb,
                                  input int unsigned r);
    reg_we = v && line == {2'b00, 32'(r / 8)} && strb[(r % 8) * 8 +: 8] == 8'hFF;
  endfunction
  function automatic logic [63:0] reg_wd(input logic [511:0] d, input int unsigned r);
    reg_wd = d[(r % 8) * 64 +: 64];
  endfunction

  logic ctrl_we, tcnt_we, clr_cnt, clr_err;
  logic [3:0]  ctrl_wd;
  logic [63:0] tcnt_wd;
  assign tcnt_wd = reg_wd(wr_data_i, ndp_dev_pkg::RegTensorCnt);
  assign ctrl_we = reg_we(wr_valid_i, wr_line_i, wr_strb_i, ndp_dev_pkg::RegCtrl);
  assign ctrl_wd = wr_data_i[(ndp_dev_pkg::RegCtrl % 8) * 64 +: 4];
  assign tcnt_we = reg_we(wr_valid_i, wr_line_i, wr_strb_i, ndp_dev_pkg::RegTensorCnt) && !commit_busy_o;
  // PREFETCH and TRACK: bits 7..0, a write clamped to the register's maximum (MaxPrefetch,
  // MaxTrack = Bufs - 2), reset to it
  localparam int unsigned MaxTrack = (Bufs < 2) ? 0 : Bufs - 2;
  function automatic logic [7:0] clamp8(input logic [7:0] v, input int unsigned max);
    clamp8 = (32'(v) > max) ? 8'(max) : v;
  endfunction
  logic [7:0] pf_q, tk_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pf_q <= 8'(MaxPrefetch);
      tk_q <= 8'(MaxTrack);
    end else begin
      if (reg_we(wr_valid_i, wr_line_i, wr_strb_i, ndp_dev_pkg::RegPrefetch))
        pf_q <= clamp8(8'(reg_wd(wr_data_i, ndp_dev_pkg::RegPrefetch)), MaxPrefetch);
      if (reg_we(wr_valid_i, wr_line_i, wr_strb_i, ndp_dev_pkg::RegTrack))
        tk_q <= clamp8(8'(reg_wd(wr_data_i, ndp_dev_pkg::RegTrack)), MaxTrack);
    end
  end
  assign pf_depth_o = pf_q;
  assign track_o    = tk_q;

  assign clr_cnt = ctrl_we && ctrl_wd[1];
  assign clr_err = ctrl_we && ctrl_wd[2];

  // ---------------------------------------------------------------------------------------------
  // Descriptor RAM and the commit walker
  typedef enum logic [1:0] {CmIdle, CmRead, CmCheck} commit_e;
  commit_e     cm_q;
  logic [TW:0] cm_t_q;
  logic [18:0] cm_prev_q;
  logic        cm_have_prev_q;
  logic        ram_re;
  logic [TW-1:0] ram_raddr;
  logic [511:0] ram_rd;
  logic        rd_desc, rd_reg;

  assign rd_reg  = rd_line_i < 34'(RegLines);
  assign rd_desc = rd_line_i >= 34'(DescLine) && rd_line_i < 34'(DescLine) + 34'(MaxTensors);
  assign rd_decerr_o = !rd_reg && !rd_desc;

  always_comb begin
    ram_re    = 1'b0;
    ram_raddr = '0;
    if (cm_q == CmRead) begin
      ram_re    = 1'b1;
      ram_raddr = TW'(cm_t_q);
    end else if (dsc_valid_i) begin
      ram_re    = 1'b1;
      ram_raddr = dsc_t_i;
    end else if (rd_valid_i && rd_desc) begin
      ram_re    = 1'b1;
      ram_raddr = TW'(rd_line_i - 34'(DescLine));
    end
  end

  ram_1r1w #(.Width(512), .Depth(MaxTensors), .Lanes(64)) u_desc (
    .clk_i, .rst_ni,
    .we_i   (wr_valid_i && wr_desc),
    .waddr_i(wr_t),
    .wlane_i(wr_strb_i),
    .wdata_i(wr_data_i),
    .re_i   (ram_re),
    .raddr_i(ram_raddr),
    .rdata_o(ram_rd)
  );

  // Checks of one descriptor line (spec 7.3); the RTL serves bf16 tensors.
  logic        cm_ok;
  ndp_dev_pkg::desc_t cd;
  // the fields of the descriptor line the RAM answers (spec 7.3 layout)
  always_comb begin
    cd             = '0;
    cd.base        = ram_rd[ndp_dev_pkg::BaseShift +: 19];
    cd.elems       = ram_rd[64 +: 40];
    cd.image       = ram_rd[128 +: 40];
    cd.index       = ram_rd[192 +: 40];
    cd.data_end    = ram_rd[256 +: 40];
    cd.chunk_elems = ram_rd[320 +: 32];
    cd.dtype       = ram_rd[352 +: 8];
    cd.layout      = ram_rd[360 +: 8];
    cd.slots       = ram_rd[368 +: 8];
    cd.flags       = ram_rd[376 +: 8];
  end
  assign dsc_o = cd;
  always_comb begin
    cm_ok = cd.flags[0] && ram_rd[20:0] == '0 && ram_rd[63:40] == '0
         && (!cm_have_prev_q || cd.base > cm_prev_q)
         && cd.elems != '0 && ram_rd[127:104] == '0
         && cd.dtype == 8'd1 && cd.layout <= 8'd1
         && cd.slots == (cd.layout[0] ? 8'd9 : 8'd16)
         && cd.chunk_elems[10:0] == '0 && cd.chunk_elems >= 32'd2048
         && cd.chunk_elems <= 32'(MaxChunkElems)
         && ram_rd[128 + DramAw +: 64 - DramAw] == '0
         && ram_rd[192 + DramAw +: 64 - DramAw] == '0
         && (ram_rd[256 + DramAw +: 64 - DramAw] == '0
             || ram_rd[256 +: 64] == 64'(1) << DramAw);
  end

  logic              rej_valid;
  ndp_dev_pkg::err_t rej_err;
  assign rej_valid = cm_q == CmCheck && !cm_ok;
  always_comb begin
    rej_err        = '0;
    rej_err.code   = ndp_dev_pkg::ErrDescRejected;
    rej_err.tensor = 32'(cm_t_q);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cm_q           <= CmIdle;
      cm_t_q         <= '0;
      cm_prev_q      <= '0;
      cm_have_prev_q <= 1'b0;
      mapped_q       <= '0;
      tcount_q       <= '0;
      rejected_q     <= '0;
    end else begin
      unique case (cm_q)
        CmIdle: if (tcnt_we) begin
          tcount_q       <= tcnt_wd > 64'(MaxTensors) ? 32'(MaxTensors) : tcnt_wd[31:0];
          mapped_q       <= '0;
          rejected_q     <= '0;
          cm_t_q         <= '0;
          cm_have_prev_q <= 1'b0;
          cm_q           <= CmRead;
        end
        CmRead: cm_q <= (32'(cm_t_q) < tcount_q) ? CmCheck : CmIdle;
        CmCheck: begin
          if (cm_ok) begin
            mapped_q[TW'(cm_t_q)] <= 1'b1;
            cm_prev_q             <= cd.base;
            cm_have_prev_q        <= 1'b1;
          end else begin
            rejected_q <= rejected_q + 32'd1;
          end
          cm_t_q <= cm_t_q + 1'b1;
          cm_q   <= CmRead;
        end
        default: cm_q <= CmIdle;
      endcase
    end
  end
  assign commit_busy_o = cm_q != CmIdle;

  always_ff @(posedge clk_i) begin
    if (wr_valid_i && wr_desc && wr_strb_i[7:0] == 8'hFF) base_q[wr_t] <= wr_data_i[ndp_dev_pkg::BaseShift +: 19];
  end

  // Lookup: the highest mapped tensor with base <= slot (bases of mapped tensors increase).
  always_comb begin
    lk_hit_o = 1'b0;
    lk_t_o   = '0;
    for (int unsigned t = 0; t < MaxTensors; t++) begin
      if (mapped_q[t] && base_q[t] <= lk_slot_i) begin
        lk_hit_o = 1'b1;
        lk_t_o   = TW'(t);
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // CTRL, counters, error log. The 64-bit counts step through pfx_inc: Yosys maps `+` as a ripple
  // chain, which made a counter's increment the block's critical path (1 182 ps).
  logic [ndp_dev_pkg::NumCnt*64-1:0] cnt_n;      // flat: wires, not a memory
  logic [63:0] err_count_n;
  for (genvar i = 0; i < ndp_dev_pkg::NumCnt; i++) begin : gen_cnt
    localparam logic [7:0] Unit = (i == ndp_dev_pkg::CntDramRd || i == ndp_dev_pkg::CntDramWr) ? 8'd64 : 8'd1;
    logic [7:0]  amt;
    assign amt = (cnt_inc_i[i] && cnt_inc2_i[i]) ? 8'(2 * Unit) : ((cnt_inc_i[i] || cnt_inc2_i[i]) ? Unit : 8'd0);
    pfx_inc #(.W(64), .B(8)) u_inc (.a_i(cnt_q[i]), .b_i(amt), .sum_o(cnt_n[i*64 +: 64]));
  end
  logic [2:0]  err_amt;
  assign err_amt = 3'(err_a_valid_i) + 3'(err_b_valid_i) + 3'(err_c_valid_i) + 3'(rej_valid);
  pfx_inc #(.W(64), .B(3)) u_errc (.a_i(err_count_q), .b_i(err_amt), .sum_o(err_count_n));

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      enable_q    <= 1'b0;
      err_valid_q <= 1'b0;
      err_q       <= '0;
      err_count_q <= '0;
      for (int unsigned i = 0; i < ndp_dev_pkg::NumCnt; i++) cnt_q[i] <= '0;
    end else begin
      if (ctrl_we) enable_q <= ctrl_wd[0];
      for (int unsigned i = 0; i < ndp_dev_pkg::NumCnt; i++) begin
        if (clr_cnt) cnt_q[i] <= '0;
        else if (cnt_inc_i[i] || cnt_inc2_i[i]) cnt_q[i] <= cnt_n[i*64 +: 64];
      end
      if (clr_err) begin
        err_valid_q <= 1'b0;
        err_count_q <= '0;
      end else begin
        err_count_q <= err_count_n;
        if (!err_valid_q) begin
          if (err_a_valid_i) err_q <= err_a_i;
          else if (err_b_valid_i) err_q <= err_b_i;
          else if (err_c_valid_i) err_q <= err_c_i;
          else if (rej_valid) err_q <= rej_err;
          err_valid_q <= err_a_valid_i || err_b_valid_i || err_c_valid_i || rej_valid;
        end
      end
    end
  end
  assign enable_o = enable_q;
  assign mapped_o = mapped_q;
  assign flush_o  = (ctrl_we && ctrl_wd[3]) || tcnt_we;

  // ---------------------------------------------------------------------------------------------
  // Register read (registered, like the RAM)
  logic [63:0]  regs [RegLines * 8];
  logic [511:0] reg_line_q;
  logic         rd_was_desc_q;
  always_comb begin
    for (int unsigned r = 0; r < RegLines * 8; r++) regs[r] = '0;
    regs[ndp_dev_pkg::RegId]        = {16'd0, 16'd1, 32'h4450444E};
    regs[ndp_dev_pkg::RegCaps]      = {11'd0, 5'd11, 8'(DramAw), 8'h02, 3'd0, 5'($clog2(MaxChunkElems)),
                                       16'(MaxTensors), 8'(Lanes)};
    regs[ndp_dev_pkg::RegCtrl]      = {63'd0, enable_q};
    regs[ndp_dev_pkg::RegTensorCnt] = 64'(tcount_q);
    regs[ndp_dev_pkg::RegStatus]    = {rejected_q, 29'd0, decoding_i, err_valid_q, commit_busy_o};
    regs[ndp_dev_pkg::RegCaps2]     = {24'd0, 8'(MaxTrack), 8'((Track > 255) ? 255 : Track), 8'(MaxPrefetch),
                                       8'(Sets), 8'(Bufs)};
    regs[ndp_dev_pkg::RegPrefetch]  = 64'(pf_q);
    regs[ndp_dev_pkg::RegTrack]     = 64'(tk_q);
    regs[ndp_dev_pkg::RegErrCode]   = {err_q.tensor, err_q.slot, err_q.plane, err_q.code};
    regs[ndp_dev_pkg::RegErrChunk]  = err_q.chunk;
    regs[ndp_dev_pkg::RegErrAddr]   = err_q.addr;
    regs[ndp_dev_pkg::RegErrCount]  = err_count_q;
    for (int unsigned i = 0; i < ndp_dev_pkg::NumCnt; i++) regs[ndp_dev_pkg::RegCntBase + i] = cnt_q[i];
  end
  always_ff @(posedge clk_i) begin
    if (rd_valid_i) begin
      rd_was_desc_q <= rd_desc;
      for (int unsigned r = 0; r < 8; r++) reg_line_q[r*64 +: 64] <= regs[(rd_line_i[5:0] * 8 + r) % (RegLines * 8)];
    end
  end
  assign rd_data_o = rd_was_desc_q ? ram_rd : reg_line_q;

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, MaxTensors >= 2 && (MaxTensors & (MaxTensors - 1)) == 0
                   && MaxChunkElems >= 2048 && DramAw >= 16 && DramAw <= 40
                   && (Bufs < 2 ? MaxPrefetch == 0 : MaxPrefetch <= Bufs - 2) && Bufs <= 255 && Sets <= 255)
  `NDP_ASSERT(no_desc_read_while_commit_a, !(commit_busy_o && dsc_valid_i))
endmodule
