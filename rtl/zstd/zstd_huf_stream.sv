// zstd_huf_stream: decodes one Huffman-coded literal stream (RFC 8878 section 4.2.2), one symbol
// per cycle, into the literal RAM as 64-bit words from word base_i on.
//
/// The code is canonical (zstd order): the top Max_Number_of_Bits bits v of the stream fall in
/// the range of the largest weight w with rank_start[w] <= v; the symbol is
/// sorted[rank_idx[w] + ((v - rank_start[w]) >> (w-1))] and takes maxBits+1-w bits. No table fill.
/// The sorted-symbol RAM read is the one pipeline stage; bytes are packed into a word and written
/// through the shared literal-RAM port (wreq_o/wgnt_i). At the end the stream must be consumed
/// exactly (left == 0). Bounded: count_i + 16 cycles plus write-port waits.
`include "ndp_assert.svh"

module zstd_huf_stream #(
  parameter int unsigned AddrW = 17,
  parameter int unsigned LitWAW = 14   // literal RAM word address width
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              start_i,
  input  logic [17:0]       count_i,
  input  logic [LitWAW-1:0] base_i,
  output logic              busy_o,
  output logic              err_o,      // sticky until the next start
  input  logic [3:0]        maxbits_i,
  input  logic [11*12-1:0]  rank_start_i,
  input  logic [11*9-1:0]   rank_idx_i,
  // backward reader
  output logic [5:0]        bwd_consume_o,
  input  logic [31:0]       bwd_peek_i,
  input  logic              bwd_ready_i,
  input  logic              bwd_err_i,
  input  logic signed [AddrW+4:0] bwd_left_i,
  // sorted-symbol RAM
  output logic              sr_re_o,
  output logic [7:0]        sr_addr_o,
  input  logic [7:0]        sr_data_i,
  // literal RAM write request
  output logic              wreq_o,
  output logic [LitWAW-1:0] waddr_o,
  output logic [63:0]       wdata_o,
  input  logic              wgnt_i
);
  typedef enum logic [1:0] {SIdle, SRun, SFlush, SCheck} state_e;
  state_e state_q;

  logic [17:0]       rem_q;
  logic [LitWAW-1:0] widx_q;
  logic [63:0]       asm_q;
  logic [3:0]        acnt_q;
  logic              infl_q, pend_q;
  logic [63:0]       pdata_q;
  logic [LitWAW-1:0] paddr_q;

  // Canonical decode of the next symbol.
  logic [10:0] v;
  logic [3:0]  w, nb;
  logic [11:0] d;
  logic [8:0]  idx;
  always_comb begin
    v = 11'(bwd_peek_i[31:21] >> (4'd11 - maxbits_i));
    w = 4'd1;
    for (int k = 1; k < 12; k++) begin
      if (12'(v) >= rank_start_i[(k-1)*12 +: 12]) w = 4'(k);
    end
    d   = 12'(v) - rank_start_i[(w-4'd1)*12 +: 12];
    idx = rank_idx_i[(w-4'd1)*9 +: 9] + 9'(d >> (w - 4'd1));
    nb  = maxbits_i + 4'd1 - w;
  end

  logic can_issue, issue;
  assign can_issue = !pend_q || wgnt_i || (5'(acnt_q) + 5'(infl_q) <= 5'd6);
  assign issue     = (state_q == SRun) && rem_q != '0 && bwd_ready_i && can_issue;

  assign bwd_consume_o = issue ? 6'(nb) : 6'd0;
  assign sr_re_o       = issue;
  assign sr_addr_o     = idx[7:0];
  assign wreq_o        = pend_q;
  assign waddr_o       = paddr_q;
  assign wdata_o       = pdata_q;
  assign busy_o        = (state_q != SIdle);

  logic [63:0] asm_n;
  logic [3:0]  acnt_n;
  always_comb begin
    asm_n  = asm_q;
    acnt_n = acnt_q;
    if (infl_q) begin
      asm_n[{acnt_q[2:0], 3'b000} +: 8] = sr_data_i;
      acnt_n = acnt_q + 4'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      rem_q <= '0; widx_q <= '0; asm_q <= '0; acnt_q <= '0; infl_q <= 1'b0; pend_q <= 1'b0;
      pdata_q <= '0; paddr_q <= '0; err_o <= 1'b0;
    end else begin
      if (pend_q && wgnt_i) pend_q <= 1'b0;
      infl_q <= issue;
      asm_q  <= asm_n;
      acnt_q <= acnt_n;
      if (acnt_n == 4'd8) begin
        pend_q  <= 1'b1;
        pdata_q <= asm_n;
        paddr_q <= widx_q;
        widx_q  <= widx_q + 1'b1;
        acnt_q  <= '0;
      end
      if (issue) rem_q <= rem_q - 18'd1;
      unique case (state_q)
        SIdle: if (start_i) begin
          rem_q   <= count_i;
          widx_q  <= base_i;
          acnt_q  <= '0;
          err_o   <= 1'b0;
          state_q <= SRun;
        end
        SRun: begin
          if (bwd_err_i) begin
            err_o   <= 1'b1;
            state_q <= SFlush;
          end else if (rem_q == '0 && !infl_q && bwd_ready_i) state_q <= SFlush;
        end
        SFlush: if (!pend_q || wgnt_i) begin
          if (acnt_q != '0 && !infl_q) begin
            pend_q  <= 1'b1;
            pdata_q <= asm_q;
            paddr_q <= widx_q;
            acnt_q  <= '0;
          end
          state_q <= SCheck;
        end
        SCheck: if (!pend_q || wgnt_i) begin
          if (bwd_left_i != '0) err_o <= 1'b1;
          state_q <= SIdle;
        end
        default: state_q <= SIdle;
      endcase
    end
  end

  `NDP_ASSERT(no_pend_overrun_a, !(acnt_n == 4'd8 && pend_q && !wgnt_i))
endmodule
