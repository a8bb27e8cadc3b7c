// lz4_enc_inram: the encoder's input ring (the block being encoded and the one before it while that
// one is still being formatted), written P bytes per cycle and read by two
// ports at any byte position: port A (P bytes, match extension) and port B (OutBytes bytes,
// literals).
//
/// Registers: two replicas of Banks byte-wide ram_1r1w banks (bank = position mod Banks, so a
/// run of up to Banks consecutive bytes touches each bank once) and the low position bits of each
/// read, registered to rotate the bank outputs back into order. Reads have one cycle of latency.
/// PortA = 0 leaves out port A and its replica (zstd_encoder's literal buffer: port B only), and
/// AlignedWrites = 0 allows writes at any position (up to P bytes still touch each bank once).
`include "ndp_assert.svh"

module lz4_enc_inram #(
  parameter int unsigned P             = 8,
  parameter int unsigned OutBytes      = 16,
  parameter int unsigned MaxBlockBytes = 65536,
  parameter bit          PortA         = 1'b1,
  parameter bit          AlignedWrites = 1'b1,
  localparam int unsigned Banks = (P > OutBytes) ? P : OutBytes,
  localparam int unsigned LB    = $clog2(Banks),
  localparam int unsigned Rows  = MaxBlockBytes / Banks,
  localparam int unsigned RW    = $clog2(Rows),
  localparam int unsigned PCW   = $clog2(P + 1)
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  we_i,
  input  logic [15:0]           wpos_i,
  input  logic [P*8-1:0]        wdata_i,
  input  logic [PCW-1:0]        wcnt_i,
  input  logic [15:0]           a_pos_i,     // ring addresses (mod MaxBlockBytes)
  output logic [P*8-1:0]        a_data_o,
  input  logic [15:0]           b_pos_i,
  output logic [OutBytes*8-1:0] b_data_o
);
  logic [RW-1:0] waddr [Banks];
  logic [7:0]    wdata [Banks];
  logic          we    [Banks];
  /* verilator lint_off UNUSEDSIGNAL */
  logic [RW-1:0] aaddr [Banks];        // unused without port A
  /* verilator lint_on UNUSEDSIGNAL */
  logic [RW-1:0] baddr [Banks];
  logic [7:0]    ard   [Banks];
  logic [7:0]    brd   [Banks];
  logic [LB-1:0] alow_q, blow_q;

  always_comb begin
    for (int b = 0; b < Banks; b++) begin
      logic [LB-1:0] j;
      logic [16:0]   pos;
      j        = LB'(b) - wpos_i[LB-1:0];
      pos      = {1'b0, wpos_i} + 17'(j);  // bit 16 and bits above the ring drop out
      we[b]    = we_i && (32'(j) < 32'(wcnt_i));
      waddr[b] = RW'(pos >> LB);
      wdata[b] = (32'(j) < P) ? wdata_i[(32'(j) % P)*8 +: 8] : 8'h00;
      aaddr[b] = RW'((a_pos_i >> LB) + 16'(LB'(b) < a_pos_i[LB-1:0]));
      baddr[b] = RW'((b_pos_i >> LB) + 16'(LB'(b) < b_pos_i[LB-1:0]));
    end
  end

  for (genvar b = 0; b < Banks; b++) begin : gen_bank
    // the macro's read port on a plain net: Yosys 0.23 drops a black-box output bound to an
    // unpacked-array element (the RAM then vanished from synthesis)
    if (PortA) begin : gen_a
      logic [7:0] rd_ard;
      ram_1r1w #(.Width(8), .Depth(Rows)) u_a (
        .clk_i,
        .rst_ni,
        .we_i   (we[b]),
        .waddr_i(waddr[b]),
        .wlane_i(1'b1),
        .wdata_i(wdata[b]),
        .re_i   (1'b1),
        .raddr_i(aaddr[b]),
        .rdata_o(rd_ard)
      );
      assign ard[b] = rd_ard;
    end else begin : gen_no_a
      assign ard[b] = 8'h00;
    end
    // the macro's read port on a plain net: Yosys 0.23 drops a black-box output bound to an
    // unpacked-array element (the RAM then vanished from synthesis)
    logic [7:0] rd_brd;
    ram_1r1w #(.Width(8), .Depth(Rows)) u_b (
      .clk_i,
      .rst_ni,
      .we_i   (we[b]),
      .waddr_i(waddr[b]),
      .wlane_i(1'b1),
      .wdata_i(wdata[b]),
      .re_i   (1'b1),
      .raddr_i(baddr[b]),
      .rdata_o(rd_brd)
    );
    assign brd[b] = rd_brd;
  end

  always_ff @(posedge clk_i) begin
    alow_q <= a_pos_i[LB-1:0];
    blow_q <= b_pos_i[LB-1:0];
  end

  always_comb begin
    for (int k = 0; k < P; k++) a_data_o[k*8 +: 8] = ard[LB'(alow_q + LB'(k))];
    for (int k = 0; k < OutBytes; k++) b_data_o[k*8 +: 8] = brd[LB'(blow_q + LB'(k))];
  end

  `NDP_ASSERT_INIT(params_a, (Banks & (Banks - 1)) == 0 && Rows * Banks == MaxBlockBytes &&
                   (MaxBlockBytes & (MaxBlockBytes - 1)) == 0)
  `NDP_ASSERT(aligned_write_a, !AlignedWrites || !we_i || wpos_i[$clog2(P)-1:0] == '0)
endmodule
