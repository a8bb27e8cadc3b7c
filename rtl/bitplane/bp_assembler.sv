// bp_assembler: plane streams in, one precision region out (docs/spec.md section 5, docs/rtl.md).
//
// A command names the region (format, K for eEmK, guard planes g, layout) and the element count
// n of the tensor. The assembler then joins, beat by beat, the plane streams the region fetches:
// the sign plane, the exponent (ExpBits bit-planes, or the EXPBYTE stream in the expbyte
// layout) and the top t = min(ManBits, m + g) mantissa planes. Each stream beat carries Lanes
// elements' bits (a bit-plane beat is Lanes bits LSB first, an EXPBYTE beat Lanes bytes), so a
// stream delivers ceil(n / Lanes) beats. Unfetched mantissa bits read as zero (that is v').
// MX regions first get their group scale (bp_asm_mx); every lane then converts its element in
// three registered stages (bp_asm_dec, bp_asm_align, bp_asm_round), and bp_asm_pack lays the
// codes out as the region's bytes.
//
/// Registers: the command/config registers, a spill register after the join, the MX stage (a
/// pipe_reg and two FIFOs), pipe_regs after each converter stage, and a spill register at the
/// output (so neither ready nor valid passes combinationally across the block). One command at a time: the
/// next command is accepted after the previous one's last output beat (a few idle cycles per
/// region read). Full rate: one beat of Lanes elements per cycle.
`include "ndp_assert.svh"

module bp_assembler #(
  parameter int unsigned ExpBits = 8,   // source format (bf16: 8, 7)
  parameter int unsigned ManBits = 7,
  parameter int unsigned Lanes   = 16,  // elements per beat, divides 32
  localparam int unsigned ElemBits = 1 + ExpBits + ManBits,
  localparam int unsigned OutBytes = Lanes * ElemBits / 8,
  localparam int unsigned MW = $clog2(ManBits + 1),
  localparam int unsigned NbW = $clog2(OutBytes + 1)
) (
  input  logic                      clk_i,
  input  logic                      rst_ni,
  // command: one region read of cmd_n_i elements
  input  logic                      cmd_valid_i,
  output logic                      cmd_ready_o,
  input  bp_pkg::fmt_e              cmd_fmt_i,
  input  logic [MW-1:0]             cmd_k_i,        // eEmK: mantissa bits kept (0..ManBits)
  input  logic [1:0]                cmd_guard_i,    // guard planes g (0..2)
  input  logic                      cmd_expbyte_i,  // exponent arrives on the EXPBYTE stream
  input  logic [31:0]               cmd_n_i,        // elements, >= 1
  // bit-plane streams: plane b's beat at bp_data_i[b*Lanes +: Lanes]
  input  logic [ElemBits-1:0]       bp_valid_i,
  output logic [ElemBits-1:0]       bp_ready_o,
  input  logic [ElemBits*Lanes-1:0] bp_data_i,
  // EXPBYTE stream: element i's exponent byte at eb_data_i[i*8 +: 8]
  input  logic                      eb_valid_i,
  output logic                      eb_ready_o,
  input  logic [8*Lanes-1:0]        eb_data_i,
  // region bytes, LSB first; out_nbytes_o valid bytes per beat
  output logic                      out_valid_o,
  input  logic                      out_ready_i,
  output logic [OutBytes*8-1:0]     out_data_o,
  output logic [NbW-1:0]            out_nbytes_o,
  output logic                      out_last_o,
  output logic                      busy_o
);
  localparam int unsigned Bias = (1 << (ExpBits - 1)) - 1;
  localparam int unsigned TW = ExpBits + 4;
  localparam int unsigned QW = TW - 1 + ManBits + 1;
  localparam int unsigned CntW = $clog2(Lanes + 1);
  localparam int unsigned BeatW = Lanes * ElemBits + CntW + 1;

  // ---- command and per-region configuration ----
  bp_pkg::fmt_e  fmt_q;
  logic [MW-1:0] m_q, t_q, shift_q;
  logic [TW-1:0] c1_q, xoffp_q, kshift_q;
  logic [QW-1:0] maxcode_q;
  logic          expbyte_q, mx_q, busy_q, joining_q;
  logic [31:0]   rem_q;
  logic          cmd_fire, out_fire;

  // Target geometry of a format: mantissa bits m, bias bt (emin = 1 - bt), largest finite code.
  logic [MW-1:0] cm, ct;
  logic [TW-1:0] cemin;
  logic [QW-1:0] cmax;
  always_comb begin
    cm    = MW'(ManBits);
    cemin = TW'(1) - TW'(Bias);
    cmax  = '1;
    unique case (cmd_fmt_i)
      bp_pkg::FmtEmK: begin
        cm   = cmd_k_i;
        cmax = (QW'((1 << ExpBits) - 2) << cmd_k_i) | ((QW'(1) << cmd_k_i) - QW'(1));
      end
      bp_pkg::FmtE4M3, bp_pkg::FmtMxfp8: begin cm = MW'(3); cemin = TW'(-6);  cmax = QW'(8'h7E); end
      bp_pkg::FmtE5M2:                   begin cm = MW'(2); cemin = TW'(-14); cmax = QW'(8'h7B); end
      bp_pkg::FmtE3M2:                   begin cm = MW'(2); cemin = TW'(-2);  cmax = QW'(8'h1F); end
      bp_pkg::FmtE2M3:                   begin cm = MW'(3); cemin = '0;       cmax = QW'(8'h1F); end
      bp_pkg::FmtE2M1, bp_pkg::FmtMxfp4: begin cm = MW'(1); cemin = '0;       cmax = QW'(8'h07); end
      default: begin  // FmtFull: every plane; v' passes as eEmK with K = ManBits (exact)
        cmax = (QW'((1 << ExpBits) - 2) << ManBits) | ((QW'(1) << ManBits) - QW'(1));
      end
    endcase
    ct = (cmd_fmt_i == bp_pkg::FmtFull || 32'(cm) + 32'(cmd_guard_i) >= ManBits)
         ? MW'(ManBits) : cm + MW'(cmd_guard_i);
  end

  assign cmd_ready_o = !busy_q;
  assign cmd_fire    = cmd_valid_i && cmd_ready_o;
  assign busy_o      = busy_q;

  always_ff @(posedge clk_i) begin
    if (cmd_fire) begin
      fmt_q       <= cmd_fmt_i;
      m_q         <= cm;
      t_q         <= ct;
      shift_q     <= MW'(ManBits) - cm;
      // offsets of bp_asm_mx/bp_asm_dec (X = 0): xoffp = Bias - bt = Bias + emin - 1,
      // kshift = xoffp + 1 + ManBits - m, c1 = MX key of X = 0 = Bias + EmaxElem
      xoffp_q     <= TW'(Bias) + cemin - TW'(1);
      kshift_q    <= TW'(Bias) + cemin + TW'(ManBits) - TW'(cm);
      c1_q        <= TW'(Bias) + ((cmd_fmt_i == bp_pkg::FmtMxfp8) ? TW'(8) : TW'(2));
      maxcode_q   <= cmax;
      expbyte_q   <= cmd_expbyte_i;
      mx_q        <= (cmd_fmt_i == bp_pkg::FmtMxfp8 || cmd_fmt_i == bp_pkg::FmtMxfp4);
    end
  end

  // ---- join the fetched plane streams ----
  logic [ElemBits:0] en, jvalid_in, jready;
  logic              jvalid, jfire, r1_ready;
  logic [CntW-1:0]   cnt;
  logic              last;
  logic [Lanes*ElemBits-1:0] elems;

  always_comb begin
    en = '0;
    en[ElemBits-1] = 1'b1;                                  // sign
    if (expbyte_q) en[ElemBits] = 1'b1;                     // EXPBYTE stream
    else en[ManBits +: ExpBits] = '1;                       // exponent bit-planes
    for (int unsigned j = 0; j < ManBits; j++) begin       // top t mantissa planes
      if (j + 32'(t_q) >= ManBits) en[j] = 1'b1;
    end
    if (!joining_q) en = '0;
  end
  assign jvalid_in = {eb_valid_i, bp_valid_i};
  stream_join #(.N(ElemBits + 1)) u_join (
    .clk_i, .rst_ni, .en_i(en), .in_valid_i(jvalid_in), .in_ready_o(jready),
    .out_valid_o(jvalid), .out_ready_i(r1_ready)
  );
  assign {eb_ready_o, bp_ready_o} = jready;
  assign jfire = jvalid && r1_ready;
  assign last  = (rem_q <= 32'(Lanes));
  assign cnt   = last ? CntW'(rem_q) : CntW'(Lanes);

  // Lane i's element v': sign, exponent, fetched mantissa bits; lanes past cnt are zero.
  always_comb begin
    for (int unsigned i = 0; i < Lanes; i++) begin
      logic [ElemBits-1:0] v;
      v[ElemBits-1] = bp_data_i[(ElemBits-1)*Lanes + i];
      for (int unsigned j = 0; j < ExpBits; j++) begin
        v[ManBits + j] = expbyte_q ? eb_data_i[i*8 + j] : bp_data_i[(ManBits + j)*Lanes + i];
      end
      for (int unsigned j = 0; j < ManBits; j++) begin
        v[j] = en[j] && bp_data_i[j*Lanes + i];
      end
      elems[i*ElemBits +: ElemBits] = (CntW'(i) < cnt) ? v : '0;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_q    <= 1'b0;
      joining_q <= 1'b0;
      rem_q     <= '0;
    end else begin
      if (cmd_fire) begin
        busy_q    <= 1'b1;
        joining_q <= 1'b1;
        rem_q     <= cmd_n_i;
      end else begin
        if (jfire) begin
          rem_q <= rem_q - 32'(cnt);
          if (last) joining_q <= 1'b0;
        end
        if (out_fire && out_last_o) busy_q <= 1'b0;
      end
    end
  end

  // ---- pipeline: join -> R1 -> MX stage -> convert -> R2 -> pack -> R3 ----
  logic             r1_valid, mx_ready, mx_valid, mx_out_ready, r3_ready;
  logic [BeatW-1:0] r1_beat, mx_beat;
  logic             mx_gfirst, mx_special;
  logic [7:0]       mx_scale;
  logic [TW-1:0]    mx_xoffp, mx_kshift;

  spill_reg #(.Width(BeatW)) u_r1 (
    .clk_i, .rst_ni,
    .in_valid_i(jvalid), .in_ready_o(r1_ready), .in_data_i({elems, cnt, last}),
    .out_valid_o(r1_valid), .out_ready_i(mx_ready), .out_data_o(r1_beat)
  );

  bp_asm_mx #(.ExpBits(ExpBits), .ManBits(ManBits), .Lanes(Lanes)) u_mx (
    .clk_i, .rst_ni, .mx_i(mx_q), .c1_i(c1_q), .xoffp_i(xoffp_q), .kshift_i(kshift_q),
    .in_valid_i(r1_valid), .in_ready_o(mx_ready), .in_beat_i(r1_beat),
    .out_valid_o(mx_valid), .out_ready_i(mx_out_ready), .out_beat_o(mx_beat),
    .out_gfirst_o(mx_gfirst), .out_scale_o(mx_scale), .out_xoffp_o(mx_xoffp),
    .out_kshift_o(mx_kshift), .out_special_o(mx_special)
  );

  // Register the MX stage's output (its FIFO read mux) before the converter lanes.
  logic             p1_valid, p1_ready, p1_gfirst, p1_special;
  logic [BeatW-1:0] p1_beat;
  logic [7:0]       p1_scale;
  logic [TW-1:0]    p1_xoffp, p1_kshift;
  pipe_reg #(.Width(BeatW + 1 + 8 + 2*TW + 1)) u_p1 (
    .clk_i, .rst_ni,
    .in_valid_i(mx_valid), .in_ready_o(mx_out_ready),
    .in_data_i({mx_beat, mx_gfirst, mx_scale, mx_xoffp, mx_kshift, mx_special}),
    .out_valid_o(p1_valid), .out_ready_i(p1_ready),
    .out_data_o({p1_beat, p1_gfirst, p1_scale, p1_xoffp, p1_kshift, p1_special})
  );

  // Lane converter, three stages (decode | align | round), each registered by a pipe_reg.
  localparam int unsigned DecW = 4 + (ManBits + 1) + 2*TW;  // s, nan, inf, zero, sig, dp, shw
  localparam int unsigned AlnW = 4 + QW + 1;              // s, nan, inf, zero, q0, inc
  localparam int unsigned MetaW = CntW + 1 + 1 + 8 + 1;   // cnt, last, gfirst, scale, mx_zero

  logic [CntW-1:0] p1_cnt;
  logic            p1_last;
  assign p1_cnt  = p1_beat[1 +: CntW];
  assign p1_last = p1_beat[0];

  logic [Lanes*DecW-1:0] dec, p2_dec;
  for (genvar i = 0; i < Lanes; i++) begin : gen_dec
    logic s, nan, inf, zero;
    logic [ManBits:0] sig;
    logic [TW-1:0] dp, shw;
    bp_asm_dec #(.ExpBits(ExpBits), .ManBits(ManBits)) u_dec (
      .elem_i(p1_beat[CntW + 1 + i*ElemBits +: ElemBits]), .xoffp_i(p1_xoffp),
      .kshift_i(p1_kshift), .s_o(s), .nan_o(nan), .inf_o(inf), .zero_o(zero), .sig_o(sig),
      .dp_o(dp), .shw_o(shw)
    );
    assign dec[i*DecW +: DecW] = {s, nan, inf, zero, sig, dp, shw};
  end

  logic            p2_valid, p2_ready, p3_valid, p3_ready, p4_valid, p4_ready;
  logic [MetaW-1:0] p2_meta, p3_meta, p4_meta;
  pipe_reg #(.Width(Lanes*DecW + MetaW)) u_p2 (
    .clk_i, .rst_ni,
    .in_valid_i(p1_valid), .in_ready_o(p1_ready),
    .in_data_i({dec, p1_cnt, p1_last, p1_gfirst, p1_scale, p1_special}),
    .out_valid_o(p2_valid), .out_ready_i(p2_ready), .out_data_o({p2_dec, p2_meta})
  );

  logic [Lanes*AlnW-1:0] aln, p3_aln;
  for (genvar i = 0; i < Lanes; i++) begin : gen_align
    logic s, nan, inf, zero, inc;
    logic [ManBits:0] sig;
    logic [TW-1:0] dp, shw;
    logic [QW-1:0] q0;
    assign {s, nan, inf, zero, sig, dp, shw} = p2_dec[i*DecW +: DecW];
    bp_asm_align #(.ExpBits(ExpBits), .ManBits(ManBits)) u_align (
      .sig_i(sig), .dp_i(dp), .shw_i(shw), .nan_i(nan), .zero_i(zero), .m_i(m_q),
      .mm_i(shift_q), .q0_o(q0), .inc_o(inc)
    );
    assign aln[i*AlnW +: AlnW] = {s, nan, inf, zero, q0, inc};
  end

  pipe_reg #(.Width(Lanes*AlnW + MetaW)) u_p3 (
    .clk_i, .rst_ni,
    .in_valid_i(p2_valid), .in_ready_o(p2_ready), .in_data_i({aln, p2_meta}),
    .out_valid_o(p3_valid), .out_ready_i(p3_ready), .out_data_o({p3_aln, p3_meta})
  );

  logic [Lanes*ElemBits-1:0] codes, p4_codes;
  for (genvar i = 0; i < Lanes; i++) begin : gen_round
    logic s, nan, inf, zero, inc;
    logic [QW-1:0] q0;
    assign {s, nan, inf, zero, q0, inc} = p3_aln[i*AlnW +: AlnW];
    bp_asm_round #(.ExpBits(ExpBits), .ManBits(ManBits)) u_round (
      .fmt_i(fmt_q), .maxcode_i(maxcode_q), .shift_i(shift_q), .s_i(s), .nan_i(nan), .inf_i(inf),
      .mx_zero_i(p3_meta[0]), .q0_i(q0), .inc_i(inc), .code_o(codes[i*ElemBits +: ElemBits])
    );
    logic unused_zero;
    assign unused_zero = zero;
  end

  pipe_reg #(.Width(Lanes*ElemBits + MetaW)) u_p4 (
    .clk_i, .rst_ni,
    .in_valid_i(p3_valid), .in_ready_o(p3_ready), .in_data_i({codes, p3_meta}),
    .out_valid_o(p4_valid), .out_ready_i(p4_ready), .out_data_o({p4_codes, p4_meta})
  );

  logic [CntW-1:0] r2_cnt;
  logic            r2_last, r2_gfirst, r2_valid, unused_mxz;
  logic [7:0]      r2_scale;
  logic [Lanes*ElemBits-1:0] r2_codes;
  assign {r2_cnt, r2_last, r2_gfirst, r2_scale, unused_mxz} = p4_meta;
  assign r2_codes = p4_codes;
  assign r2_valid = p4_valid;
  assign p4_ready = r3_ready;

  logic [OutBytes*8-1:0] pdata;
  logic [NbW-1:0]        pnbytes;
  bp_asm_pack #(.ElemBits(ElemBits), .Lanes(Lanes)) u_pack (
    .fmt_i(fmt_q), .codes_i(r2_codes), .cnt_i(r2_cnt), .gfirst_i(r2_gfirst), .scale_i(r2_scale),
    .data_o(pdata), .nbytes_o(pnbytes)
  );

  spill_reg #(.Width(OutBytes*8 + NbW + 1)) u_r3 (
    .clk_i, .rst_ni,
    .in_valid_i(r2_valid), .in_ready_o(r3_ready), .in_data_i({pdata, pnbytes, r2_last}),
    .out_valid_o, .out_ready_i, .out_data_o({out_data_o, out_nbytes_o, out_last_o})
  );
  assign out_fire = out_valid_o && out_ready_i;

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, ExpBits >= 5 && ExpBits <= 8 && Lanes % 8 == 0 && Lanes <= 32)
  `NDP_ASSERT(cmd_n_legal_a, !cmd_fire || cmd_n_i != '0)
  `NDP_ASSERT(cmd_k_legal_a, !cmd_fire || cmd_fmt_i != bp_pkg::FmtEmK || 32'(cmd_k_i) <= ManBits)
  `NDP_ASSERT(cmd_guard_legal_a, !cmd_fire || cmd_guard_i <= 2'd2)
  `NDP_ASSERT(cmd_fmt_legal_a, !cmd_fire || cmd_fmt_i <= bp_pkg::FmtMxfp4)
  `NDP_ASSERT(join_only_when_busy_a, !joining_q || busy_q)
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_nbytes_o, out_last_o})
endmodule
