// bp_asm_mx: MX shared-scale stage of bp_assembler (docs/spec.md section 5.4).
//
// Beats of Lanes source elements (v') pass through a FIFO of two groups while the largest
// element exponent of each group of 32 is found; a beat leaves only once its group's scale is
// known. Per group: any NaN/Inf -> scale 0xFF and zero elements; else X = clamp(emax - EmaxElem,
// -127, 127), scale byte X + 127 (an all-zero group has scale 0). Outside MX mode beats pass
// straight through the FIFO (scale unused).
//
/// Registers: a pipe_reg after the per-beat max tree (stage A), the group accumulator, the beat
/// FIFO and the scale FIFO (both fifo_sync). Output valid depends only on FIFO state.
`include "ndp_assert.svh"

module bp_asm_mx #(
  parameter int unsigned ExpBits = 8,
  parameter int unsigned ManBits = 7,
  parameter int unsigned Lanes   = 16,
  localparam int unsigned ElemBits = 1 + ExpBits + ManBits,
  localparam int unsigned TW = ExpBits + 4,
  localparam int unsigned CntW = $clog2(Lanes + 1),
  localparam int unsigned BeatW = Lanes * ElemBits + CntW + 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             mx_i,         // MX region active (quasi-static per command)
  input  logic [3:0]       emax_elem_i,  // 8 (E4M3) or 2 (E2M1)
  // beats: {elements, cnt, last}
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [BeatW-1:0] in_beat_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [BeatW-1:0] out_beat_o,
  output logic             out_gfirst_o,  // first beat of an MX group (carries the scale byte)
  output logic [7:0]       out_scale_o,   // E8M0 scale byte of the beat's group
  output logic [TW-1:0]    out_xscale_o,  // shared exponent X (signed); 0 outside MX mode
  output logic             out_special_o  // group holds NaN/Inf: elements are zero
);
  localparam int unsigned Bias = (1 << (ExpBits - 1)) - 1;
  localparam int unsigned GroupBeats = bp_pkg::MxGroup / Lanes;
  localparam int unsigned GbW = (GroupBeats > 1) ? $clog2(GroupBeats) : 1;
  localparam int unsigned MW = $clog2(ManBits + 1);

  logic [Lanes*ElemBits-1:0] elems;
  assign elems = in_beat_i[BeatW-1 -: Lanes*ElemBits];

  // ---- stage A: per-lane true exponent, then a balanced max tree over the beat ----
  // Node n of the heap (1 .. 2*Lanes-1, leaves at Lanes + i) holds {valid, te}; valid means a
  // finite non-zero element below it. The root gives the beat's largest exponent.
  localparam int unsigned NodeW = TW + 1;
  logic [2*Lanes*NodeW-1:0] node;
  logic                     a_sp;
  always_comb begin
    node = '0;
    a_sp = 1'b0;
    for (int unsigned i = 0; i < Lanes; i++) begin
      logic [ExpBits-1:0] e;
      logic [ManBits-1:0] f;
      logic [MW-1:0]      lz;
      logic [TW-1:0]      te;
      e  = elems[i*ElemBits + ManBits +: ExpBits];
      f  = elems[i*ElemBits +: ManBits];
      lz = '0;
      for (int j = 0; j < ManBits; j++) begin
        if (f[j]) lz = MW'(ManBits - 1 - j);
      end
      te = (e != '0) ? TW'(e) - TW'(Bias) : -TW'(Bias) - TW'(lz);
      // lanes past cnt hold zeros (the join clears them): neither special nor non-zero
      if (e == '1) a_sp = 1'b1;
      node[(Lanes + i)*NodeW +: NodeW] = {(e != '1) && (e != '0 || f != '0), te};
    end
    for (int unsigned n = Lanes - 1; n >= 1; n--) begin
      logic [NodeW-1:0] l, r;
      l = node[(2*n)*NodeW +: NodeW];
      r = node[(2*n + 1)*NodeW +: NodeW];
      if (!l[TW] || (r[TW] && $signed(r[TW-1:0]) > $signed(l[TW-1:0]))) node[n*NodeW +: NodeW] = r;
      else node[n*NodeW +: NodeW] = l;
    end
  end

  // Stage register: the beat with its summary (largest exponent, any non-zero, any NaN/Inf).
  logic             a_valid, a_ready;
  logic [BeatW-1:0] a_beat;
  logic [TW-1:0]    bmax;
  logic             bnz, bsp;
  pipe_reg #(.Width(BeatW + TW + 2)) u_stage_a (
    .clk_i, .rst_ni,
    .in_valid_i, .in_ready_o, .in_data_i({in_beat_i, node[NodeW +: NodeW], a_sp}),
    .out_valid_o(a_valid), .out_ready_i(a_ready), .out_data_o({a_beat, bnz, bmax, bsp})
  );
  logic a_last;
  assign a_last = a_beat[0];

  // ---- group accumulator ----
  logic [TW-1:0] acc_max_q, gmax, x;
  logic          acc_nz_q, acc_sp_q, gnz, gsp, gend;
  logic [GbW-1:0] gbeat_q;
  logic          fire, beat_ready, scale_ready, scale_valid, scale_pop;
  logic [7:0]    scale_byte;

  assign gnz  = acc_nz_q || bnz;
  assign gsp  = acc_sp_q || bsp;
  assign gmax = (!acc_nz_q || (bnz && $signed(bmax) > $signed(acc_max_q))) ? bmax : acc_max_q;
  assign gend = a_last || (gbeat_q == GbW'(GroupBeats - 1));

  always_comb begin
    x = gmax - TW'(emax_elem_i);
    if (!gnz || $signed(x) < -$signed(TW'(127))) x = -TW'(127);
    if ($signed(x) > $signed(TW'(127))) x = TW'(127);
    scale_byte = gsp ? 8'hFF : 8'(x + TW'(127));
  end

  assign a_ready = beat_ready && (scale_ready || !mx_i);
  assign fire    = a_valid && a_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_max_q <= '0;
      acc_nz_q  <= 1'b0;
      acc_sp_q  <= 1'b0;
      gbeat_q   <= '0;
    end else if (fire) begin
      if (gend) begin
        acc_nz_q <= 1'b0;
        acc_sp_q <= 1'b0;
        gbeat_q  <= '0;
      end else begin
        acc_max_q <= gmax;
        acc_nz_q  <= gnz;
        acc_sp_q  <= gsp;
        gbeat_q   <= gbeat_q + 1'b1;
      end
    end
  end

  // ---- beat FIFO (two groups) and scale FIFO ----
  logic             bq_valid, bq_glast;
  logic [1:0]       unused_sq_cnt;
  logic [$clog2(2*GroupBeats+1)-1:0] unused_bq_cnt;
  logic [TW+8:0]    sq_data;

  fifo_sync #(.Width(BeatW + 2), .Depth(2 * GroupBeats)) u_beats (
    .clk_i, .rst_ni,
    .in_valid_i(fire), .in_ready_o(beat_ready),
    .in_data_i({a_beat, gbeat_q == '0, gend}),
    .out_valid_o(bq_valid), .out_ready_i(out_valid_o && out_ready_i),
    .out_data_o({out_beat_o, out_gfirst_o, bq_glast}),
    .count_o(unused_bq_cnt)
  );

  assign scale_pop = out_valid_o && out_ready_i && bq_glast && mx_i;
  fifo_sync #(.Width(TW + 9), .Depth(2)) u_scales (
    .clk_i, .rst_ni,
    .in_valid_i(fire && gend && mx_i), .in_ready_o(scale_ready),
    .in_data_i({x, scale_byte, gsp}),
    .out_valid_o(scale_valid), .out_ready_i(scale_pop),
    .out_data_o(sq_data),
    .count_o(unused_sq_cnt)
  );

  assign out_valid_o   = bq_valid && (scale_valid || !mx_i);
  assign out_xscale_o  = mx_i ? sq_data[TW+8:9] : '0;
  assign out_scale_o   = sq_data[8:1];
  assign out_special_o = mx_i && sq_data[0];

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(lanes_divide_group_a, Lanes <= bp_pkg::MxGroup && bp_pkg::MxGroup % Lanes == 0)
  `NDP_ASSERT(scale_with_group_a, !(mx_i && scale_valid) || bq_valid)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                     {out_beat_o, out_gfirst_o, out_scale_o, out_xscale_o, out_special_o})
endmodule
