// tb_cells: test top that exposes the rtl/common stream cells to the C++ harness
// (tb/common/test_cells.cc). Each channel is independent:
//   a: fifo_sync (Depth 3, not a power of two)      b: spill_reg
//   c: stream_fork into two FIFOs, stalled independently (c_stall_i), joined again by stream_join
//   d: rr_arbiter + stream_mux over three sources    e: stream_demux to three sinks
//   f: fifo_ram (Depth 5: RAM storage, not a power of two)
module tb_cells (
  input  logic        clk_i,
  input  logic        rst_ni,
  // a
  input  logic        a_in_valid_i,
  output logic        a_in_ready_o,
  input  logic [15:0] a_in_data_i,
  output logic        a_out_valid_o,
  input  logic        a_out_ready_i,
  output logic [15:0] a_out_data_o,
  // b
  input  logic        b_in_valid_i,
  output logic        b_in_ready_o,
  input  logic [15:0] b_in_data_i,
  output logic        b_out_valid_o,
  input  logic        b_out_ready_i,
  output logic [15:0] b_out_data_o,
  // c
  input  logic        c_in_valid_i,
  output logic        c_in_ready_o,
  input  logic [15:0] c_in_data_i,
  input  logic [1:0]  c_stall_i,
  output logic        c_out_valid_o,
  input  logic        c_out_ready_i,
  output logic [31:0] c_out_data_o,   // {copy 1, copy 0}
  // d
  input  logic [2:0]  d_in_valid_i,
  output logic [2:0]  d_in_ready_o,
  input  logic [47:0] d_in_data_i,
  output logic        d_out_valid_o,
  input  logic        d_out_ready_i,
  output logic [17:0] d_out_data_o,   // {source index, payload}
  // e
  input  logic        e_in_valid_i,
  output logic        e_in_ready_o,
  input  logic [1:0]  e_in_sel_i,
  output logic [2:0]  e_out_valid_o,
  input  logic [2:0]  e_out_ready_i,
  // f
  input  logic        f_in_valid_i,
  output logic        f_in_ready_o,
  input  logic [15:0] f_in_data_i,
  output logic        f_out_valid_o,
  input  logic        f_out_ready_i,
  output logic [15:0] f_out_data_o
);
  logic [2:0] unused_cnt_f;
  fifo_ram #(.Width(16), .Depth(5)) u_fifo_ram (
    .clk_i, .rst_ni,
    .in_valid_i(f_in_valid_i), .in_ready_o(f_in_ready_o), .in_data_i(f_in_data_i),
    .out_valid_o(f_out_valid_o), .out_ready_i(f_out_ready_i), .out_data_o(f_out_data_o),
    .count_o(unused_cnt_f)
  );

  logic [2:0] unused_cnt_a;
  fifo_sync #(.Width(16), .Depth(3)) u_fifo (
    .clk_i, .rst_ni,
    .in_valid_i(a_in_valid_i), .in_ready_o(a_in_ready_o), .in_data_i(a_in_data_i),
    .out_valid_o(a_out_valid_o), .out_ready_i(a_out_ready_i), .out_data_o(a_out_data_o),
    .count_o(unused_cnt_a[1:0])
  );
  assign unused_cnt_a[2] = 1'b0;

  spill_reg #(.Width(16)) u_spill (
    .clk_i, .rst_ni,
    .in_valid_i(b_in_valid_i), .in_ready_o(b_in_ready_o), .in_data_i(b_in_data_i),
    .out_valid_o(b_out_valid_o), .out_ready_i(b_out_ready_i), .out_data_o(b_out_data_o)
  );

  // c: fork -> two stallable FIFOs -> join
  logic [1:0]  fk_valid, fk_ready, q_in_valid, q_in_ready, q_valid, q_ready;
  logic [31:0] q_data;
  logic [3:0]  unused_cnt_c;
  stream_fork #(.N(2)) u_fork (
    .clk_i, .rst_ni, .en_i(2'b11), .in_valid_i(c_in_valid_i), .in_ready_o(c_in_ready_o),
    .out_valid_o(fk_valid), .out_ready_i(fk_ready)
  );
  for (genvar i = 0; i < 2; i++) begin : gen_branch
    assign q_in_valid[i] = fk_valid[i] && !c_stall_i[i];
    assign fk_ready[i]   = q_in_ready[i] && !c_stall_i[i];
    fifo_sync #(.Width(16), .Depth(2)) u_q (
      .clk_i, .rst_ni,
      .in_valid_i(q_in_valid[i]), .in_ready_o(q_in_ready[i]), .in_data_i(c_in_data_i),
      .out_valid_o(q_valid[i]), .out_ready_i(q_ready[i]), .out_data_o(q_data[i*16 +: 16]),
      .count_o(unused_cnt_c[i*2 +: 2])
    );
  end
  stream_join #(.N(2)) u_join (
    .clk_i, .rst_ni, .en_i(2'b11), .in_valid_i(q_valid), .in_ready_o(q_ready),
    .out_valid_o(c_out_valid_o), .out_ready_i(c_out_ready_i)
  );
  assign c_out_data_o = q_data;

  // d: round-robin arbiter steering a mux
  logic [1:0] d_idx;
  logic       d_arb_valid, d_mux_valid;
  logic [2:0] d_mux_ready;
  rr_arbiter #(.N(3)) u_arb (
    .clk_i, .rst_ni, .in_valid_i(d_in_valid_i), .in_ready_o(d_in_ready_o),
    .out_valid_o(d_arb_valid), .out_ready_i(d_out_ready_i), .idx_o(d_idx)
  );
  stream_mux #(.N(3), .Width(16)) u_mux (
    .clk_i, .rst_ni, .sel_i(d_idx), .in_valid_i(d_in_valid_i), .in_ready_o(d_mux_ready),
    .in_data_i(d_in_data_i), .out_valid_o(d_mux_valid), .out_ready_i(d_out_ready_i),
    .out_data_o(d_out_data_o[15:0])
  );
  assign d_out_valid_o      = d_arb_valid;
  assign d_out_data_o[17:16] = d_idx;
  logic unused_d;
  assign unused_d = d_mux_valid ^ (|d_mux_ready);

  stream_demux #(.N(3)) u_demux (
    .clk_i, .rst_ni, .sel_i(e_in_sel_i), .in_valid_i(e_in_valid_i), .in_ready_o(e_in_ready_o),
    .out_valid_o(e_out_valid_o), .out_ready_i(e_out_ready_i)
  );
endmodule
