// zstd_enc_tree: the Huffman_Tree_Description of docs/spec.md 4.3 step 3, from the code lengths:
// the direct 4-bit form when the largest symbol S is <= 128, else the FSE form (the shorter of the
// descriptions at accuracy logs 5 and 6, log 5 on ties), written byte by byte into the tree buffer.
//
/// Weights of symbols 0..S-1: w = maxBits + 1 - len (0 for absent symbols). Direct: header byte
/// 127 + S and one byte per weight pair (1 per cycle). FSE: two zstd_enc_fsew run in parallel on the
/// weight counts (from the per-length counts, without a pass over the weights), then the winner is
/// copied (header byte = its size, then its bytes, 1 per cycle). No description (ok_o low) when the
/// FSE form is longer than 127 bytes or the weights are all equal.
`include "ndp_assert.svh"

module zstd_enc_tree (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             start_i,
  input  logic [256*4-1:0] len_i,        // zstd_enc_code outputs, held while busy
  input  logic [3:0]       max_bits_i,
  input  logic [7:0]       max_sym_i,
  input  logic [8:0]       k_i,
  input  logic [12*9-1:0]  per_len_i,
  output logic             tb_we_o,      // tree buffer byte write
  output logic [6:0]       tb_addr_o,
  output logic [7:0]       tb_data_o,
  output logic             done_o,
  output logic             ok_o,
  output logic             fse_o,
  output logic [7:0]       tlen_o        // description bytes, header included (1..128)
);
  typedef enum logic [2:0] {TIdle, THdr, TDirect, TFse, TCopy, TDone} st_e;
  st_e st_q;

  logic [7:0] j_q;                 // next pair (direct) / next body byte to read (copy)
  logic       cp_v_q, sel6_q, ok_q, fse_q;
  logic [6:0] cp_a_q;              // where the byte read last cycle goes
  logic [7:0] tlen_q, hdr_q;

  // weight read ports
  logic [7:0] wa0, wa1;
  logic [3:0] w0, w1;
  function automatic logic [3:0] weight(input logic [256*4-1:0] len, input logic [3:0] mb,
                                        input logic [7:0] s);
    logic [3:0] l;
    l = len[32'(s)*4 +: 4];
    weight = (l == '0) ? 4'd0 : mb + 4'd1 - l;
  endfunction
  assign w0 = weight(len_i, max_bits_i, wa0);
  assign w1 = weight(len_i, max_bits_i, wa1);

  // weight counts of the series (symbols 0..S-1)
  logic [12*8-1:0] wcnt;
  always_comb begin
    logic [3:0] ls;
    ls = len_i[32'(max_sym_i)*4 +: 4];
    wcnt = '0;
    wcnt[7:0] = 8'(max_sym_i - 8'(k_i - 9'd1));
    for (int v = 1; v < 12; v++) begin
      logic [3:0] l;
      l = 4'(32'(max_bits_i) + 1 - v);
      if (32'(v) <= 32'(max_bits_i)) wcnt[v*8 +: 8] = 8'(per_len_i[32'(l)*9 +: 9]) - 8'(ls == l);
    end
  end

  logic       f_start;
  logic       f5_done, f6_done, f5_ok, f6_ok;
  logic [7:0] f5_len, f6_len, f5_rd, f6_rd, f5_wa, f6_wa;
  logic [6:0] f_rd_addr;
  assign f_start = start_i && max_sym_i > 8'd128;

  zstd_enc_fsew #(.Log(5)) u_fse5 (
    .clk_i, .rst_ni,
    .start_i (f_start),
    .nw_i    ({1'b0, max_sym_i}),
    .cnt_i   (wcnt),
    .w_addr_o(f5_wa),
    .w_i     (w0),
    .done_o  (f5_done),
    .ok_o    (f5_ok),
    .len_o   (f5_len),
    .rd_addr_i(f_rd_addr),
    .rd_data_o(f5_rd)
  );
  zstd_enc_fsew #(.Log(6)) u_fse6 (
    .clk_i, .rst_ni,
    .start_i (f_start),
    .nw_i    ({1'b0, max_sym_i}),
    .cnt_i   (wcnt),
    .w_addr_o(f6_wa),
    .w_i     (w1),
    .done_o  (f6_done),
    .ok_o    (f6_ok),
    .len_o   (f6_len),
    .rd_addr_i(f_rd_addr),
    .rd_data_o(f6_rd)
  );

  assign wa0 = (st_q == TDirect) ? {j_q[6:0], 1'b0} : f5_wa;
  assign wa1 = (st_q == TDirect) ? {j_q[6:0], 1'b1} : f6_wa;
  assign f_rd_addr = j_q[6:0];

  always_comb begin
    tb_we_o   = 1'b0;
    tb_addr_o = '0;
    tb_data_o = '0;
    unique case (st_q)
      THdr: begin
        tb_we_o   = 1'b1;
        tb_data_o = hdr_q;
      end
      TDirect: begin
        tb_we_o   = 1'b1;
        tb_addr_o = 7'(j_q + 8'd1);
        tb_data_o = {w0, (32'({j_q, 1'b1}) < 32'(max_sym_i)) ? w1 : 4'd0};
      end
      TCopy: begin
        tb_we_o   = cp_v_q;
        tb_addr_o = cp_a_q;
        tb_data_o = sel6_q ? f6_rd : f5_rd;
      end
      default: ;
    endcase
  end

  assign done_o = (st_q == TDone);
  assign ok_o   = ok_q;
  assign fse_o  = fse_q;
  assign tlen_o = tlen_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= TIdle;
      j_q    <= '0;
      cp_v_q <= 1'b0;
      cp_a_q <= '0;
      sel6_q <= 1'b0;
      ok_q   <= 1'b0;
      fse_q  <= 1'b0;
      tlen_q <= '0;
      hdr_q  <= '0;
    end else if (start_i) begin
      j_q    <= '0;
      cp_v_q <= 1'b0;
      ok_q   <= 1'b0;
      fse_q  <= max_sym_i > 8'd128;
      st_q   <= (max_sym_i > 8'd128) ? TFse : THdr;
      hdr_q  <= 8'd127 + max_sym_i;
      tlen_q <= 8'd1 + 8'((9'(max_sym_i) + 9'd1) >> 1);
    end else begin
      cp_v_q <= 1'b0;
      unique case (st_q)
        THdr: st_q <= fse_q ? TCopy : TDirect;
        TDirect: begin
          j_q <= j_q + 8'd1;
          if (32'({j_q, 1'b0}) + 2 >= 32'(max_sym_i)) begin
            ok_q <= 1'b1;
            st_q <= TDone;
          end
        end
        TFse: if (f5_done && f6_done) begin
          sel6_q <= f6_len < f5_len;
          ok_q   <= (f6_len < f5_len) ? f6_ok : f5_ok;
          hdr_q  <= (f6_len < f5_len) ? f6_len : f5_len;
          tlen_q <= 8'd1 + ((f6_len < f5_len) ? f6_len : f5_len);
          j_q    <= '0;
          st_q   <= ((f6_len < f5_len) ? f6_ok : f5_ok) ? THdr : TDone;
        end
        TCopy: begin
          // read body byte j_q; it is written at j_q + 1 the next cycle
          if (32'(j_q) + 1 < 32'(tlen_q)) begin
            j_q    <= j_q + 8'd1;
            cp_v_q <= 1'b1;
            cp_a_q <= 7'(j_q + 8'd1);
          end else if (!cp_v_q) begin
            st_q <= TDone;
          end
        end
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(sym_legal_a, st_q == TIdle || st_q == TDone || (max_sym_i >= 8'd1 && k_i >= 9'd2))
  `NDP_ASSERT(tlen_legal_a, st_q != TDone || !ok_q || (tlen_q >= 8'd2 && tlen_q <= 8'd128))
endmodule
