// bp_asm_mx: MX shared-scale stage of bp_assembler (docs/spec.md section 5.4), and the source of
// the per-beat exponent offsets every converter lane uses.
//
// Beats of Lanes source elements (v') pass through a FIFO of two groups while the largest element
// exponent of each group of 32 is found; in MX mode a beat leaves only once its group's scale is
// known. Per group: any NaN/Inf -> scale 0xFF and zero elements; else X = clamp(emax - EmaxElem,
// -127, 127), scale byte X + 127 (an all-zero group has X = -127, scale 0). Outside MX mode X = 0.
//
// Exponents are compared as raw keys {e, 0} for a normal element, ManBits - lz for a subnormal one
// (lz = leading zeros of its mantissa), 0 for zero: they order exactly like the exponents and
// need no adder. The beat maximum is then turned into key = floor(log2|x|) + Bias of the beat's
// largest element (e for a normal one, -lz for a subnormal one, -ManBits when all are zero, which
// is below every other key and clamps to X = -127).
//
// The converter lanes get, per beat, xoffp = Bias - bt + X (bt = target bias) and
// kshift = xoffp + 1 + (ManBits - m): bp_asm_dec turns them into the target exponent and the
// alignment shift with one subtraction each.
//
/// Registers: pipe_regs after the lane keys and across the max tree (stages A0-A2), the group
/// accumulator, the beat FIFO and the scale FIFO (both fifo_sync). Output valid depends only on
/// FIFO state.
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
  // per-command configuration (registers of the parent)
  input  logic             mx_i,          // MX region
  input  logic [TW-1:0]    c1_i,          // Bias + EmaxElem (key of X = 0)
  input  logic [TW-1:0]    xoffp_i,       // Bias - bt (xoffp at X = 0)
  input  logic [TW-1:0]    kshift_i,      // Bias - bt + 1 + ManBits - m (kshift at X = 0)
  // beats: {elements, cnt, last}
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [BeatW-1:0] in_beat_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [BeatW-1:0] out_beat_o,
  output logic             out_gfirst_o,   // first beat of an MX group (carries the scale byte)
  output logic [7:0]       out_scale_o,    // E8M0 scale byte of the beat's group
  output logic [TW-1:0]    out_xoffp_o,    // xoffp_i + X
  output logic [TW-1:0]    out_kshift_o,   // kshift_i + X
  output logic             out_special_o   // MX group holds NaN/Inf: elements are zero
);
  localparam int unsigned LW = $clog2(ManBits + 1);
  localparam int unsigned RW = ExpBits + LW;  // raw key width
  localparam logic [TW-1:0] KeyNone = TW'(0) - TW'(ManBits);  // key of an all-zero beat
  localparam int unsigned GroupBeats = bp_pkg::MxGroup / Lanes;
  localparam int unsigned GbW = (GroupBeats > 1) ? $clog2(GroupBeats) : 1;
  localparam int unsigned MW = $clog2(ManBits + 1);

  logic [Lanes*ElemBits-1:0] elems;
  assign elems = in_beat_i[BeatW-1 -: Lanes*ElemBits];

  // ---- stage A0: per-lane raw key; A1: Parts partial maxima; A2: the beat maximum ----
  // The max tree is cut into registered halves so that each stage holds about two compare levels.
  localparam int unsigned Parts = (Lanes >= 4) ? Lanes / 4 : 1;
  localparam int unsigned PerPart = Lanes / Parts;

  logic [Lanes*RW-1:0] keys;
  logic                a_sp;
  always_comb begin
    keys = '0;
    a_sp = 1'b0;
    for (int unsigned i = 0; i < Lanes; i++) begin
      logic [ExpBits-1:0] e;
      logic [ManBits-1:0] f;
      logic [MW-1:0]      lz, sk;
      e  = elems[i*ElemBits + ManBits +: ExpBits];
      f  = elems[i*ElemBits +: ManBits];
      lz = '0;
      for (int j = 0; j < ManBits; j++) begin
        if (f[j]) lz = MW'(ManBits - 1 - j);
      end
      // lanes past cnt hold zeros (the join clears them): key 0, not special
      if (e == '1) a_sp = 1'b1;
      else if (e != '0) keys[i*RW +: RW] = {e, {LW{1'b0}}};
      sk = MW'(ManBits) - lz;
      if (e == '0 && f != '0) keys[i*RW +: RW] = RW'(sk);
    end
  end

  // Stage A0 register: the beat with its raw keys.
  logic                a0_valid, a0_ready, a0_sp;
  logic [BeatW-1:0]    a0_beat;
  logic [Lanes*RW-1:0] a0_keys;
  pipe_reg #(.Width(BeatW + Lanes*RW + 1)) u_stage_a0 (
    .clk_i, .rst_ni,
    .in_valid_i, .in_ready_o, .in_data_i({in_beat_i, keys, a_sp}),
    .out_valid_o(a0_valid), .out_ready_i(a0_ready), .out_data_o({a0_beat, a0_keys, a0_sp})
  );

  // Parts partial maxima, each a balanced tree over PerPart lanes (heap order)
  logic [Parts*RW-1:0] part;
  always_comb begin
    for (int unsigned p = 0; p < Parts; p++) begin
      logic [2*PerPart*RW-1:0] t;  // heap: leaves at PerPart + i, root at 1
      t = '0;
      for (int unsigned i = 0; i < PerPart; i++) begin
        t[(PerPart + i)*RW +: RW] = a0_keys[(p*PerPart + i)*RW +: RW];
      end
      for (int unsigned n = PerPart - 1; n >= 1; n--) begin
        t[n*RW +: RW] = (t[(2*n + 1)*RW +: RW] > t[(2*n)*RW +: RW]) ? t[(2*n + 1)*RW +: RW]
                                                                  : t[(2*n)*RW +: RW];
      end
      part[p*RW +: RW] = (PerPart == 1) ? a0_keys[p*RW +: RW] : t[RW +: RW];
    end
  end

  logic                a1_valid, a1_ready, a1_sp;
  logic [BeatW-1:0]    a1_beat;
  logic [Parts*RW-1:0] a1_part;
  pipe_reg #(.Width(BeatW + Parts*RW + 1)) u_stage_a1 (
    .clk_i, .rst_ni,
    .in_valid_i(a0_valid), .in_ready_o(a0_ready), .in_data_i({a0_beat, part, a0_sp}),
    .out_valid_o(a1_valid), .out_ready_i(a1_ready), .out_data_o({a1_beat, a1_part, a1_sp})
  );

  logic [RW-1:0] a1_max;
  always_comb begin
    logic [2*Parts*RW-1:0] t;
    t = '0;
    for (int unsigned i = 0; i < Parts; i++) t[(Parts + i)*RW +: RW] = a1_part[i*RW +: RW];
    for (int unsigned n = Parts - 1; n >= 1; n--) begin
      t[n*RW +: RW] = (t[(2*n + 1)*RW +: RW] > t[(2*n)*RW +: RW]) ? t[(2*n + 1)*RW +: RW]
                                                                : t[(2*n)*RW +: RW];
    end
    a1_max = (Parts == 1) ? a1_part[RW-1:0] : t[RW +: RW];
  end
  // key (signed) of the beat maximum
  logic [TW-1:0] a1_key;
  assign a1_key = (a1_max[RW-1:LW] != '0) ? TW'(a1_max[RW-1:LW])
                                          : TW'(a1_max[LW-1:0]) - TW'(ManBits);

  logic             a_valid, a_ready, a_sp_q;
  logic [BeatW-1:0] a_beat;
  logic [TW-1:0]    bkey;
  pipe_reg #(.Width(BeatW + TW + 1)) u_stage_a2 (
    .clk_i, .rst_ni,
    .in_valid_i(a1_valid), .in_ready_o(a1_ready), .in_data_i({a1_beat, a1_key, a1_sp}),
    .out_valid_o(a_valid), .out_ready_i(a_ready), .out_data_o({a_beat, bkey, a_sp_q})
  );

  // ---- stage B: group accumulator and the group's offsets ----
  logic [TW-1:0]  acc_key_q, gkey;
  logic           acc_sp_q, gsp, gend, lo, hi;
  logic [GbW-1:0] gbeat_q;
  logic           fire, beat_ready, scale_ready, scale_valid, scale_pop;
  logic [TW-1:0]  gxoffp, gkshift;
  logic [7:0]     gscale;

  assign gkey = ($signed(bkey) > $signed(acc_key_q)) ? bkey : acc_key_q;
  assign gsp  = acc_sp_q || a_sp_q;
  assign gend = a_beat[0] || (gbeat_q == GbW'(GroupBeats - 1));

  // X = clamp(key - c1, -127, 127); an all-zero group (key 0) clamps to -127. The constants are
  // re-registered from the (static per command) configuration so that stage B holds only a
  // compare, one adder and a mux: the first beat of a command reaches stage B at least two
  // cycles after the configuration was loaded.
  logic [TW-1:0] klo_q, khi_q, kx_q, kk_q, ks_q, xlo_q, xhi_q, slo_q, shi_q;
  always_ff @(posedge clk_i) begin
    klo_q <= c1_i - TW'(127);
    khi_q <= c1_i + TW'(127);
    kx_q  <= xoffp_i - c1_i;
    kk_q  <= kshift_i - c1_i;
    ks_q  <= TW'(127) - c1_i;
    xlo_q <= xoffp_i - TW'(127);
    xhi_q <= xoffp_i + TW'(127);
    slo_q <= kshift_i - TW'(127);
    shi_q <= kshift_i + TW'(127);
  end
  logic [TW-1:0] gk;
  assign gk = gkey;
  always_comb begin
    lo = $signed(gk) < $signed(klo_q);
    hi = $signed(gk) > $signed(khi_q);
    if (lo) begin
      gxoffp  = xlo_q;
      gkshift = slo_q;
      gscale  = 8'd0;
    end else if (hi) begin
      gxoffp  = xhi_q;
      gkshift = shi_q;
      gscale  = 8'd254;
    end else begin
      gxoffp  = gk + kx_q;
      gkshift = gk + kk_q;
      gscale  = 8'(gk + ks_q);
    end
    if (gsp) gscale = 8'hFF;
  end

  assign a_ready = beat_ready && (scale_ready || !mx_i);
  assign fire    = a_valid && a_ready;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      acc_key_q <= KeyNone;
      acc_sp_q  <= 1'b0;
      gbeat_q   <= '0;
    end else if (fire) begin
      if (gend) begin
        acc_key_q <= KeyNone;
        acc_sp_q  <= 1'b0;
        gbeat_q   <= '0;
      end else begin
        acc_key_q <= gkey;
        acc_sp_q  <= gsp;
        gbeat_q   <= gbeat_q + 1'b1;
      end
    end
  end

  // ---- beat FIFO (two groups) and scale FIFO ----
  logic             bq_valid, bq_glast;
  logic [1:0]       unused_sq_cnt;
  logic [$clog2(2*GroupBeats+1)-1:0] unused_bq_cnt;
  logic [2*TW+8:0]  sq_data;

  fifo_sync #(.Width(BeatW + 2), .Depth(2 * GroupBeats)) u_beats (
    .clk_i, .rst_ni,
    .in_valid_i(fire), .in_ready_o(beat_ready),
    .in_data_i({a_beat, gbeat_q == '0, gend}),
    .out_valid_o(bq_valid), .out_ready_i(out_valid_o && out_ready_i),
    .out_data_o({out_beat_o, out_gfirst_o, bq_glast}),
    .count_o(unused_bq_cnt)
  );

  assign scale_pop = out_valid_o && out_ready_i && bq_glast && mx_i;
  fifo_sync #(.Width(2*TW + 9), .Depth(2)) u_scales (
    .clk_i, .rst_ni,
    .in_valid_i(fire && gend && mx_i), .in_ready_o(scale_ready),
    .in_data_i({gxoffp, gkshift, gscale, gsp}),
    .out_valid_o(scale_valid), .out_ready_i(scale_pop),
    .out_data_o(sq_data),
    .count_o(unused_sq_cnt)
  );

  assign out_valid_o   = bq_valid && (scale_valid || !mx_i);
  assign out_xoffp_o   = mx_i ? sq_data[2*TW+8 -: TW] : xoffp_i;
  assign out_kshift_o  = mx_i ? sq_data[TW+8 -: TW] : kshift_i;
  assign out_scale_o   = sq_data[8:1];
  assign out_special_o = mx_i && sq_data[0];

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(lanes_divide_group_a, Lanes <= bp_pkg::MxGroup && bp_pkg::MxGroup % Lanes == 0)
  `NDP_ASSERT(scale_with_group_a, !(mx_i && scale_valid) || bq_valid)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i,
                     {out_beat_o, out_gfirst_o, out_scale_o, out_xoffp_o, out_kshift_o,
                      out_special_o})
endmodule
