// zstd_enc_code: code lengths from the package-merge result, then the canonical zstd codes
// (docs/spec.md 4.3 step 2): lengths per symbol, the largest symbol and the longest length, and one
// table write {code, length} per present symbol, in symbol order.
//
/// Steps: (1) sorted leaf i (read from the sorter, one per cycle) gets #{d : i < nleaf(d)} and its
/// symbol's length is stored; (2) the first code of each length, longest first: next[l] = min,
/// min = (min + count[l]) / 2 (11 cycles); (3) the present symbols in ascending order (a priority
/// encoder over the lengths) take code next[len]++ (one per cycle). Registers: the 256 lengths,
/// the per-length counts and next codes, the step state.
`include "ndp_assert.svh"

module zstd_enc_code (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,
  input  logic [8:0]      k_i,          // present symbols (held while busy)
  input  logic [11*9-1:0] nleaf_i,      // zstd_enc_pm
  output logic [7:0]      lf_addr_o,    // sorted leaf read port (zstd_enc_sort)
  input  logic [7:0]      lf_sym_i,
  output logic            done_o,       // outputs valid until the next start
  output logic [256*4-1:0] len_o,       // length of symbol s at [4s +: 4] (0: absent)
  output logic [3:0]      max_bits_o,
  output logic [7:0]      max_sym_o,
  output logic [12*9-1:0] per_len_o,    // symbols of length l at [9l +: 9]
  // code table write {code[10:0], len[3:0]} at symbol tw_addr_o
  output logic            tw_we_o,
  output logic [7:0]      tw_addr_o,
  output logic [14:0]     tw_data_o
);
  typedef enum logic [2:0] {CIdle, CLen, CNext, CCode, CDone} st_e;
  st_e st_q;

  logic [256*4-1:0] len_q;            // packed: length of symbol s at [4s +: 4]
  logic [12*9-1:0]  per_len_q;        // symbols of length l at [9l +: 9]
  logic [12*11-1:0] next_q;           // next code of length l at [11l +: 11]
  logic [8:0]      i_q;
  logic            arr_q;                // leaf i_q - 1 arrives this cycle
  logic [3:0]      l_q, max_bits_q;
  logic [11:0]     min_q;
  logic [7:0]      max_sym_q;
  logic [8:0]      s_q;                  // next symbol to look at (bit 8: past 255)

  // length of the arriving sorted leaf
  logic [3:0] len_new;
  always_comb begin
    len_new = '0;
    for (int d = 0; d < 11; d++) len_new = len_new + 4'((i_q - 9'd1) < nleaf_i[d*9 +: 9]);
  end

  // next present symbol at or after s_q
  logic       found;
  logic [7:0] sym;
  always_comb begin
    found = 1'b0;
    sym   = '0;
    for (int s = 255; s >= 0; s--) begin
      if (32'(s) >= 32'(s_q) && len_q[s*4 +: 4] != '0) begin
        found = 1'b1;
        sym   = 8'(s);
      end
    end
  end

  assign lf_addr_o = i_q[7:0];
  assign tw_we_o   = (st_q == CCode) && found;
  assign tw_addr_o = sym;
  logic [3:0] sym_len;
  assign sym_len   = len_q[32'(sym)*4 +: 4];
  assign tw_data_o = {next_q[32'(sym_len)*11 +: 11], sym_len};
  assign done_o    = (st_q == CDone);
  assign max_bits_o = max_bits_q;
  assign max_sym_o  = max_sym_q;
  assign len_o     = len_q;
  assign per_len_o = per_len_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q       <= CIdle;
      i_q        <= '0;
      arr_q      <= 1'b0;
      l_q        <= '0;
      min_q      <= '0;
      max_bits_q <= '0;
      max_sym_q  <= '0;
      s_q        <= '0;
      len_q      <= '0;
      per_len_q  <= '0;
      next_q     <= '0;
    end else begin
      arr_q <= 1'b0;
      if (start_i) begin
        st_q       <= CLen;
        i_q        <= '0;
        max_bits_q <= '0;
        max_sym_q  <= '0;
        len_q      <= '0;
        per_len_q  <= '0;
      end else begin
        unique case (st_q)
          CLen: begin
            // read leaf i_q; leaf i_q - 1 arrives
            if (i_q < k_i) begin
              i_q   <= i_q + 9'd1;
              arr_q <= 1'b1;
            end
            if (arr_q) begin
              len_q[32'(lf_sym_i)*4 +: 4] <= len_new;
              per_len_q[32'(len_new)*9 +: 9] <= per_len_q[32'(len_new)*9 +: 9] + 9'd1;
              if (len_new > max_bits_q) max_bits_q <= len_new;
              if (lf_sym_i > max_sym_q) max_sym_q <= lf_sym_i;
            end
            if (!arr_q && i_q == k_i) begin
              l_q   <= 4'd11;
              min_q <= '0;
              st_q  <= CNext;
            end
          end
          CNext: begin
            next_q[32'(l_q)*11 +: 11] <= 11'(min_q);
            min_q <= (min_q + 12'(per_len_q[32'(l_q)*9 +: 9])) >> 1;
            l_q   <= l_q - 4'd1;
            if (l_q == 4'd1) begin
              s_q  <= '0;
              st_q <= CCode;
            end
          end
          CCode: begin
            if (found) begin
              next_q[32'(sym_len)*11 +: 11] <= next_q[32'(sym_len)*11 +: 11] + 11'd1;
              s_q <= 9'(sym) + 9'd1;
            end else begin
              st_q <= CDone;
            end
          end
          default: ;
        endcase
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(k_legal_a, st_q != CLen || (k_i >= 9'd2 && k_i <= 9'd256))
  `NDP_ASSERT(len_legal_a, !(st_q == CLen && arr_q) || (len_new >= 4'd1 && len_new <= 4'd11))
  `NDP_ASSERT(no_dup_a, !(st_q == CLen && arr_q) || len_q[32'(lf_sym_i)*4 +: 4] == '0)
  `NDP_ASSERT(code_fits_a, !tw_we_o || (32'(tw_data_o[14:4]) >> sym_len) == 0)
endmodule
