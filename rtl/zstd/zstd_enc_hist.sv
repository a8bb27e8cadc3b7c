// zstd_enc_hist: byte histogram of one block for the ZSTD encoder's Huffman path, InBytes bytes per
// cycle, then a read-out of the 256 counts in symbol order (one per cycle) that clears them.
//
/// Registers: one ram_1r1w bank per byte lane (256 counts of lane b: bytes b, b+InBytes, ...), a
/// two-stage read-modify-write pipeline per bank with forwarding of the count written the cycle
/// before (a RAM read returns the old data when the same address is written in that cycle), the
/// read-out address and the clear-after-reset counter. The read-out sums the banks (adder tree on
/// the RAM outputs) and writes 0 behind itself, so the next block starts from zero; after reset the
/// banks are cleared once (256 cycles) before ready_o rises.
`include "ndp_assert.svh"

module zstd_enc_hist #(
  parameter int unsigned InBytes       = 16,
  parameter int unsigned MaxBlockBytes = 65536,
  localparam int unsigned ICW   = $clog2(InBytes + 1),
  localparam int unsigned BankW = $clog2((MaxBlockBytes + InBytes - 1) / InBytes + 1),
  localparam int unsigned CntW  = $clog2(MaxBlockBytes + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  output logic                 ready_o,     // idle with all counts zero: a block may be counted
  input  logic                 add_i,       // count bytes 0..cnt_i-1 of data_i
  input  logic [InBytes*8-1:0] data_i,
  input  logic [ICW-1:0]       cnt_i,
  input  logic                 rd_start_i,  // begin the read-out (no add_i in this cycle or later)
  output logic                 rd_valid_o,  // symbol rd_sym_o has rd_cnt_o occurrences
  output logic [7:0]           rd_sym_o,
  output logic [CntW-1:0]      rd_cnt_o,
  output logic                 rd_last_o    // symbol 255: the read-out ends
);
  typedef enum logic [1:0] {HClear, HIdle, HCount, HRead} st_e;
  st_e st_q;

  logic [8:0] ra_q;                 // read-out / clear address (bit 8: done)
  logic       s1_v_q, s2_v_q, rd1_q;
  logic [InBytes-1:0] s1_lane_q, s2_lane_q;
  logic [InBytes*8-1:0] s1_a_q, s2_a_q;
  logic [InBytes*BankW-1:0] s2_val_q, rdata, inc;
  logic [7:0] rd1_sym_q;

  // ---------------------------------------------------------------------------------------------
  // Banks: stage A issues the read, stage B adds one (or forwards) and writes
  logic            we    [InBytes];
  logic [7:0]      waddr [InBytes];
  logic [BankW-1:0] wdata [InBytes];
  logic            re;
  logic [7:0]      raddr [InBytes];

  always_comb begin
    re = add_i || (st_q == HRead && !ra_q[8]);
    for (int b = 0; b < InBytes; b++) begin
      logic [BankW-1:0] cur;
      raddr[b] = (st_q == HRead) ? ra_q[7:0] : data_i[b*8 +: 8];
      cur      = (s2_v_q && s2_lane_q[b] && s2_a_q[b*8 +: 8] == s1_a_q[b*8 +: 8]) ?
                 s2_val_q[b*BankW +: BankW] : rdata[b*BankW +: BankW];
      inc[b*BankW +: BankW] = cur + 1'b1;
      if (st_q == HClear) begin
        we[b]    = !ra_q[8];
        waddr[b] = ra_q[7:0];
        wdata[b] = '0;
      end else if (rd1_q) begin
        we[b]    = 1'b1;             // clear behind the read-out
        waddr[b] = rd1_sym_q;
        wdata[b] = '0;
      end else begin
        we[b]    = s1_v_q && s1_lane_q[b];
        waddr[b] = s1_a_q[b*8 +: 8];
        wdata[b] = inc[b*BankW +: BankW];
      end
    end
  end

  for (genvar b = 0; b < InBytes; b++) begin : gen_bank
    ram_1r1w #(.Width(BankW), .Depth(256)) u_bank (
      .clk_i, .rst_ni,
      .we_i   (we[b]),
      .waddr_i(waddr[b]),
      .wlane_i(1'b1),
      .wdata_i(wdata[b]),
      .re_i   (re),
      .raddr_i(raddr[b]),
      .rdata_o(rdata[b*BankW +: BankW])
    );
  end

  // read-out sum of the banks
  always_comb begin
    logic [CntW-1:0] s;
    s = '0;
    for (int b = 0; b < InBytes; b++) s = s + CntW'(rdata[b*BankW +: BankW]);
    rd_cnt_o = s;
  end
  assign rd_valid_o = rd1_q;
  assign rd_sym_o   = rd1_sym_q;
  assign rd_last_o  = rd1_q && rd1_sym_q == 8'hFF;
  assign ready_o    = (st_q == HIdle) && !rd1_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q      <= HClear;
      ra_q      <= '0;
      s1_v_q    <= 1'b0;
      s2_v_q    <= 1'b0;
      rd1_q     <= 1'b0;
      rd1_sym_q <= '0;
    end else begin
      s1_v_q <= add_i;
      s2_v_q <= s1_v_q;
      rd1_q  <= (st_q == HRead) && !ra_q[8];
      rd1_sym_q <= ra_q[7:0];
      unique case (st_q)
        HClear: begin
          ra_q <= ra_q + 1'b1;
          if (ra_q[8]) begin
            st_q <= HIdle;
            ra_q <= '0;
          end
        end
        HIdle, HCount: begin
          if (add_i) st_q <= HCount;
          if (rd_start_i) begin
            st_q <= HRead;
            ra_q <= '0;
          end
        end
        HRead: begin
          ra_q <= ra_q + 1'b1;
          if (ra_q[8]) begin
            st_q <= HIdle;
            ra_q <= '0;
          end
        end
        default: st_q <= HIdle;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    for (int b = 0; b < InBytes; b++) s1_lane_q[b] <= 32'(b) < 32'(cnt_i);
    s1_a_q    <= data_i;
    s2_lane_q <= s1_lane_q;
    s2_a_q    <= s1_a_q;
    s2_val_q  <= inc;
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, InBytes >= 1 && MaxBlockBytes >= 256)
  `NDP_ASSERT(add_when_counting_a, !add_i || st_q == HIdle || st_q == HCount)
  `NDP_ASSERT(start_when_idle_a, !rd_start_i || ((st_q == HIdle || st_q == HCount) && !add_i))
endmodule
