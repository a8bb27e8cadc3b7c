// zstd_huf_stream: decodes one Huffman-coded literal stream (RFC 8878 section 4.2.2), two symbols
// per cycle, into the literal RAM as 64-bit words from word base_i on.
//
/// The code is canonical (zstd order): the top Max_Number_of_Bits bits v of the stream fall in
/// the range of the largest weight w with rank_start[w] <= v; the symbol is
/// sorted[rank_idx[w] + ((v - rank_start[w]) >> (w-1))] and takes maxBits+1-w bits. No table fill.
/// The second symbol is decoded from the bits after the first (two comparator banks in series).
/// The sorted-symbol RAM reads (two copies) are the one pipeline stage; bytes are packed into a word and written
/// through the shared literal-RAM port (wreq_o/wgnt_i). At the end the stream must be consumed
/// exactly (left == 0). Bounded: count_i / 2 + 16 cycles plus write-port waits.
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
  output logic [7:0]        sr_addr2_o,   // second symbol (second RAM copy, same re)
  input  logic [7:0]        sr_data2_i,
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
  logic [1:0]        infl_q;
  logic              pend_q;
  logic [63:0]       pdata_q;
  logic [LitWAW-1:0] paddr_q;

  // Canonical decode of a symbol from the next 11 stream bits: {Number_of_Bits, index, 0}.
  function automatic logic [12:0] dec(input logic [10:0] top, input logic [3:0] mb,
                                      input logic [11*12-1:0] rs, input logic [11*9-1:0] ri);
    logic [10:0] v;
    logic [3:0]  w;
    logic [11:0] d;
    logic [7:0]  idx;
    v = top >> (4'd11 - mb);
    w = 4'd1;
    for (int k = 1; k < 12; k++) begin
      if (12'(v) >= rs[(k-1)*12 +: 12]) w = 4'(k);
    end
    d   = 12'(v) - rs[(w-4'd1)*12 +: 12];
    idx = 8'(ri[(w-4'd1)*9 +: 9]) + 8'(d >> (w - 4'd1));
    dec = {mb + 4'd1 - w, idx, 1'b0};
  endfunction

  logic [12:0] da, db;
  logic [3:0]  nba, nbb;
  logic [31:0] peek2;
  logic        unused_dec;   // dec()'s zero LSB; the second symbol's bits beyond 11
  assign unused_dec = ^{da[0], db[0], peek2[20:0]};
  always_comb begin
    da    = dec(bwd_peek_i[31:21], maxbits_i, rank_start_i, rank_idx_i);
    nba   = da[12:9];
    peek2 = bwd_peek_i << nba;
    db    = dec(peek2[31:21], maxbits_i, rank_start_i, rank_idx_i);
    nbb   = db[12:9];
  end

  logic       issue, two;
  logic [1:0] k_want;
  assign k_want = (rem_q >= 18'd2) ? 2'd2 : 2'd1;
  assign issue  = (state_q == SRun) && rem_q != '0 && bwd_ready_i &&
                  (!pend_q || wgnt_i || (5'(acnt_q) + 5'(infl_q) + 5'(k_want) <= 5'd7));
  assign two    = issue && k_want == 2'd2;

  assign bwd_consume_o = issue ? (two ? 6'(nba) + 6'(nbb) : 6'(nba)) : 6'd0;
  assign sr_re_o       = issue;
  assign sr_addr_o     = da[8:1];
  assign sr_addr2_o    = db[8:1];
  assign wreq_o        = pend_q;
  assign waddr_o       = paddr_q;
  assign wdata_o       = pdata_q;
  assign busy_o        = (state_q != SIdle);

  logic [71:0] asm_n;
  logic [3:0]  acnt_n;
  always_comb begin
    asm_n  = {8'd0, asm_q};
    acnt_n = acnt_q;
    if (infl_q != 2'd0) begin
      asm_n[{acnt_q, 3'b000} +: 8] = sr_data_i;
      if (infl_q == 2'd2) asm_n[{acnt_q + 4'd1, 3'b000} +: 8] = sr_data2_i;
      acnt_n = acnt_q + 4'(infl_q);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      rem_q <= '0; widx_q <= '0; asm_q <= '0; acnt_q <= '0; infl_q <= 2'd0; pend_q <= 1'b0;
      pdata_q <= '0; paddr_q <= '0; err_o <= 1'b0;
    end else begin
      if (pend_q && wgnt_i) pend_q <= 1'b0;
      infl_q <= issue ? (two ? 2'd2 : 2'd1) : 2'd0;
      asm_q  <= asm_n[63:0];
      acnt_q <= acnt_n;
      if (acnt_n >= 4'd8) begin
        pend_q  <= 1'b1;
        pdata_q <= asm_n[63:0];
        paddr_q <= widx_q;
        widx_q  <= widx_q + 1'b1;
        asm_q   <= {56'd0, asm_n[71:64]};
        acnt_q  <= acnt_n - 4'd8;
      end
      if (issue) rem_q <= rem_q - (two ? 18'd2 : 18'd1);
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
          end else if (rem_q == '0 && infl_q == 2'd0 && bwd_ready_i) state_q <= SFlush;
        end
        SFlush: if (!pend_q || wgnt_i) begin
          if (acnt_q != '0) begin
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

  `NDP_ASSERT(no_pend_overrun_a, !(acnt_n >= 4'd8 && pend_q && !wgnt_i))
endmodule
