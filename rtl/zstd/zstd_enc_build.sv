// zstd_enc_build: builds the Huffman code of one block for the ZSTD encoder (docs/spec.md 4.3
// steps 1-3) from its histogram: read-out -> sort -> package-merge -> canonical codes -> tree
// description. Writes the code table ({code, length} per present symbol) and the tree buffer.
//
/// One step at a time, each a submodule with a start pulse and a done level: zstd_enc_sort takes the
/// present symbols from the histogram read-out (zstd_enc_hist, started here), zstd_enc_pm and
/// zstd_enc_code read the sorted leaves through the sorter's read port (one of them at a time),
/// zstd_enc_tree writes the description. ok_o is low when the block has no Huffman tree (fewer than
/// two symbols, or an FSE description over 127 bytes or of equal weights).
`include "ndp_assert.svh"

module zstd_enc_build #(
  parameter int unsigned CntW = 17
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,          // the histogram holds the block's counts
  input  logic            clear_i,          // only read the histogram out (clearing it): no code
  // histogram read-out
  output logic            hist_rd_start_o,
  input  logic            hist_rd_valid_i,
  input  logic [7:0]      hist_rd_sym_i,
  input  logic [CntW-1:0] hist_rd_cnt_i,
  input  logic            hist_rd_last_i,
  // results
  output logic            done_o,           // level, until the next start
  output logic            ok_o,
  output logic [7:0]      tlen_o,           // tree description bytes
  output logic            fse_o,            // FSE-compressed tree description
  output logic [3:0]      max_bits_o,
  // code table write {code[10:0], len[3:0]} per present symbol
  output logic            tw_we_o,
  output logic [7:0]      tw_addr_o,
  output logic [14:0]     tw_data_o,
  // tree buffer byte write
  output logic            tb_we_o,
  output logic [6:0]      tb_addr_o,
  output logic [7:0]      tb_data_o
);
  typedef enum logic [2:0] {BIdle, BRead, BPm, BCode, BTree, BDone} st_e;
  st_e st_q;
  logic ok_q;

  logic            s_done;
  logic [8:0]      k;
  logic [7:0]      s_addr, s_sym;
  logic [CntW-1:0] s_cnt;
  logic            pm_start, pm_done, c_start, c_done, t_start, t_done, t_ok, t_fse;
  logic [11*9-1:0] nleaf;
  logic [7:0]      pm_addr, c_addr, max_sym, tlen;
  logic [256*4-1:0] len;
  logic [3:0]      max_bits;
  logic [12*9-1:0] per_len;

  assign hist_rd_start_o = start_i || clear_i;

  zstd_enc_sort #(.CntW(CntW)) u_sort (
    .clk_i, .rst_ni,
    .start_i   (start_i),
    .in_valid_i(st_q == BRead && hist_rd_valid_i && hist_rd_cnt_i != '0),
    .in_sym_i  (hist_rd_sym_i),
    .in_cnt_i  (hist_rd_cnt_i),
    .in_end_i  (st_q == BRead && hist_rd_last_i),
    .done_o    (s_done),
    .k_o       (k),
    .rd_addr_i (s_addr),
    .rd_sym_o  (s_sym),
    .rd_cnt_o  (s_cnt)
  );

  zstd_enc_pm #(.CntW(CntW)) u_pm (
    .clk_i, .rst_ni,
    .start_i  (pm_start),
    .k_i      (k),
    .done_o   (pm_done),
    .nleaf_o  (nleaf),
    .lf_addr_o(pm_addr),
    .lf_cnt_i (s_cnt)
  );

  zstd_enc_code u_code (
    .clk_i, .rst_ni,
    .start_i   (c_start),
    .k_i       (k),
    .nleaf_i   (nleaf),
    .lf_addr_o (c_addr),
    .lf_sym_i  (s_sym),
    .done_o    (c_done),
    .len_o     (len),
    .max_bits_o(max_bits),
    .max_sym_o (max_sym),
    .per_len_o (per_len),
    .tw_we_o,
    .tw_addr_o,
    .tw_data_o
  );

  zstd_enc_tree u_tree (
    .clk_i, .rst_ni,
    .start_i   (t_start),
    .len_i     (len),
    .max_bits_i(max_bits),
    .max_sym_i (max_sym),
    .k_i       (k),
    .per_len_i (per_len),
    .tb_we_o,
    .tb_addr_o,
    .tb_data_o,
    .done_o    (t_done),
    .ok_o      (t_ok),
    .fse_o     (t_fse),
    .tlen_o    (tlen)
  );

  assign s_addr   = (st_q == BPm) ? pm_addr : c_addr;
  assign pm_start = (st_q == BRead) && s_done && k >= 9'd2;
  assign c_start  = (st_q == BPm) && pm_done;
  assign t_start  = (st_q == BCode) && c_done;
  assign done_o   = (st_q == BDone);
  assign ok_o     = ok_q;
  assign tlen_o   = tlen;
  assign fse_o    = t_fse;
  assign max_bits_o = max_bits;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q <= BIdle;
      ok_q <= 1'b0;
    end else if (start_i) begin
      st_q <= BRead;
      ok_q <= 1'b0;
    end else begin
      unique case (st_q)
        BRead: if (s_done) st_q <= (k >= 9'd2) ? BPm : BDone;
        BPm:   if (pm_done) st_q <= BCode;
        BCode: if (c_done) st_q <= BTree;
        BTree: if (t_done) begin
          ok_q <= t_ok;
          st_q <= BDone;
        end
        default: ;
      endcase
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(start_idle_a, !start_i || st_q == BIdle || st_q == BDone)
  `NDP_ASSERT(clear_idle_a, !clear_i || ((st_q == BIdle || st_q == BDone) && !start_i))
endmodule
