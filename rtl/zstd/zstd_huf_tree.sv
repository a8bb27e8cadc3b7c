// zstd_huf_tree: reads a Huffman_Tree_Description (RFC 8878 section 4.2.1) and builds the
// canonical decoding structure used by zstd_huf_stream: Max_Number_of_Bits, per-weight start of
// the code range (top maxBits bits of the stream) and first sorted-symbol index, and the symbols
// sorted by (weight, symbol) in the 4 sorted-symbol RAMs (one per stream decoder).
//
/// Direct (4-bit weights) and FSE-compressed forms. The forward reader must be byte aligned on
/// the header byte at start_i. desc_end_o is the byte after the description (valid at done_o).
/// Direct weights are read 16 per cycle, weights are counted 16 per cycle (aligned windows of the
/// weight registers), and the sort writes one symbol per cycle while skipping 16 zero weights per
/// cycle: a direct tree of S symbols (k of them present) takes about S/8 + k + 8 cycles; FSE-coded
/// weights are decoded one per cycle (the two states' table reads alternate).
/// Bounded: <= 16 + 16 + 256 + 16 + 255 + FSE table build cycles. Max_Number_of_Bits above 11
/// is rejected (RFC 8878 limit).
`include "ndp_assert.svh"

module zstd_huf_tree #(
  parameter int unsigned AddrW = 17
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               start_i,
  output logic               done_o,
  output logic               err_o,
  output logic [AddrW:0]     desc_end_o,
  // decoding structure (held until the next start)
  output logic [3:0]         maxbits_o,
  output logic [11*12-1:0]   rank_start_o,  // weight w=1..11 at [(w-1)*12 +: 12]
  output logic [11*9-1:0]    rank_idx_o,    // weight w=1..11 at [(w-1)*9 +: 9]
  // forward reader
  output logic [6:0]         fwd_consume_o,
  input  logic [63:0]        fwd_peek_i,
  input  logic [7:0]         fwd_nvalid_i,
  input  logic [AddrW+3:0]   fwd_bitpos_i,
  // FSE builder (kind TabHW, mode 2)
  output logic               fse_start_o,
  input  logic               fse_done_i,
  input  logic               fse_err_i,
  input  logic [3:0]         fse_al_i,
  // backward reader 0
  output logic               bwd_init_o,
  output logic [AddrW:0]     bwd_begin_o,
  output logic [AddrW:0]     bwd_end_o,
  output logic [5:0]         bwd_consume_o,
  input  logic [31:0]        bwd_peek_i,
  input  logic               bwd_ready_i,
  input  logic               bwd_err_i,
  input  logic signed [AddrW+4:0] bwd_left_i,
  // table RAM read
  output logic               tr_re_o,
  output logic [10:0]        tr_addr_o,
  input  logic [20:0]        tr_data_i,
  // sorted-symbol RAM write (all 4 copies)
  output logic               sw_we_o,
  output logic [7:0]         sw_addr_o,
  output logic [7:0]         sw_data_o
);
  typedef enum logic [3:0] {TIdle, THb, TDirect, TFse, TS1, TS2, TLook, TEmit, TLastE,
                            TSum, TFinal, TRank, TSort, TDone, TErr} state_e;
  state_e state_q;

  logic [3:0]       w_q [256];
  logic [8:0]       n_q, i_q;          // weights decoded / loop index
  logic [AddrW:0]   dend_q;
  logic [8:0]       st_q [2];
  logic             which_q;           // state whose symbol is emitted next
  logic [12:0]      total_q;
  logic [8:0]       cnt_q [12];
  logic [8:0]       nidx_q [12];
  logic [3:0]       mb_q;
  logic [11:0]      rs_q [12];
  logic [8:0]       ri_q [12];
  zstd_pkg::fse_ent_t ent;

  assign ent = tr_data_i;

  function automatic logic [3:0] hb13(input logic [12:0] x);
    hb13 = 4'd0;
    for (int i = 0; i < 13; i++) if (x[i]) hb13 = 4'(i);
  endfunction

  logic [AddrW:0] fbyte;
  assign fbyte = fwd_bitpos_i[AddrW+3:3];
  logic [8:0] dlen;      // direct form: bytes of weights, (header - 127 + 1) / 2
  assign dlen = (9'(fwd_peek_i[7:0]) - 9'd126) >> 1;
  logic unused_bitpos;   // the description starts byte aligned
  assign unused_bitpos = ^fwd_bitpos_i[2:0];

  // Final weight and table size from the running total.
  logic [3:0]  mb;
  logic [12:0] restv;
  logic        rest_pow2;
  assign mb        = hb13(total_q) + 4'd1;
  assign restv     = (13'd1 << mb) - total_q;
  assign rest_pow2 = (restv & (restv - 13'd1)) == 13'd0;

  logic [8:0]  ovf_nb;
  assign ovf_nb = 9'(ent.nb);

  // Aligned window of 16 weights at i_q[8:4]; entries at or beyond n_q read as 0.
  logic [3:0]  win [16];
  logic [15:0] win_nz;         // non-zero and at or after i_q (sort scan)
  always_comb begin
    for (int j = 0; j < 16; j++) begin
      logic [8:0] idx;
      idx     = {i_q[8:4], 4'(j)};
      win[j]  = (idx < n_q && i_q[8] == 1'b0) ? w_q[idx[7:0]] : 4'd0;
      win_nz[j] = win[j] != 4'd0 && 4'(j) >= i_q[3:0];
    end
  end
  // Sum of the window: weight counts, total of 2^(w-1), any weight above 11.
  logic [4:0]  wc [12];
  logic [12:0] wsum;
  logic        wbad;
  always_comb begin
    wsum = '0;
    wbad = 1'b0;
    for (int v = 0; v < 12; v++) begin
      wc[v] = '0;
      for (int j = 0; j < 16; j++) wc[v] = wc[v] + 5'(win[j] == 4'(v));
    end
    for (int j = 0; j < 16; j++) begin
      if (win[j] > 4'd11) wbad = 1'b1;
      else if (win[j] != 4'd0) wsum = wsum + (13'd1 << (win[j] - 4'd1));
    end
  end
  // Sort scan: first non-zero weight of the window at or after i_q.
  logic       sfound;
  logic [3:0] spos;
  always_comb begin
    sfound = 1'b0;
    spos   = '0;
    for (int j = 15; j >= 0; j--) if (win_nz[j]) begin sfound = 1'b1; spos = 4'(j); end
  end
  logic [8:0] dbytes;          // description bytes left to read (direct form)
  assign dbytes = ((n_q - i_q) + 9'd1) >> 1;
  logic [3:0] dtake;           // bytes read this cycle
  assign dtake  = (dbytes >= 9'd8) ? 4'd8 : 4'(dbytes);

  always_comb begin
    fwd_consume_o = '0;
    fse_start_o   = 1'b0;
    bwd_init_o    = 1'b0;
    bwd_begin_o   = fbyte;
    bwd_end_o     = dend_q;
    bwd_consume_o = '0;
    tr_re_o       = 1'b0;
    tr_addr_o     = {zstd_pkg::TabHW, st_q[which_q]};
    sw_we_o       = 1'b0;
    sw_addr_o     = nidx_q[win[spos]][7:0];
    sw_data_o     = {i_q[7:4], spos};
    unique case (state_q)
      THb:     if (fwd_nvalid_i >= 8'd8) begin
                 fwd_consume_o = 7'd8;
                 fse_start_o   = !fwd_peek_i[7] && fwd_peek_i[7:0] != 8'd0;
               end
      TDirect: if (i_q < n_q && fwd_nvalid_i >= 8'({dtake, 3'b000})) fwd_consume_o = 7'({dtake, 3'b000});
      TFse:    if (fse_done_i && !fse_err_i && fbyte < dend_q) bwd_init_o = 1'b1;
      TS1, TS2: if (bwd_ready_i) bwd_consume_o = 6'(fse_al_i);
      TLook:   tr_re_o = 1'b1;
      // one weight per cycle: while the entry of state `which` is used, the other state's entry
      // is read (a stall re-reads `which`)
      TEmit:   begin
                 tr_re_o   = 1'b1;
                 tr_addr_o = {zstd_pkg::TabHW, (bwd_ready_i ? st_q[!which_q] : st_q[which_q])};
                 if (bwd_ready_i) bwd_consume_o = 6'(ent.nb);
               end
      TSort:   sw_we_o = (i_q < n_q) && sfound;
      default: ;
    endcase
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= TIdle;
      n_q <= '0; i_q <= '0; dend_q <= '0; which_q <= 1'b0; total_q <= '0; mb_q <= '0;
      st_q[0] <= '0; st_q[1] <= '0;
      for (int k = 0; k < 12; k++) begin
        cnt_q[k] <= '0; nidx_q[k] <= '0; rs_q[k] <= '0; ri_q[k] <= '0;
      end
    end else begin
      unique case (state_q)
        TIdle: if (start_i) state_q <= THb;
        THb: if (fwd_nvalid_i >= 8'd8) begin
          n_q  <= '0;
          i_q  <= '0;
          if (fwd_peek_i[7]) begin
            n_q     <= 9'(fwd_peek_i[7:0]) - 9'd127;
            dend_q  <= fbyte + 1'b1 + (AddrW+1)'(dlen);
            state_q <= TDirect;
          end else if (fwd_peek_i[7:0] == 8'd0) begin
            state_q <= TErr;
          end else begin
            dend_q  <= fbyte + 1'b1 + (AddrW+1)'(fwd_peek_i[7:0]);
            state_q <= TFse;
          end
        end
        TDirect: begin
          if (i_q < n_q) begin
            if (fwd_nvalid_i >= 8'({dtake, 3'b000})) begin
              // 8 bytes = 16 weights per cycle into the aligned window at i_q (a multiple of 16)
              for (int j = 0; j < 8; j++) begin
                w_q[{i_q[7:4], 3'(j), 1'b0}] <= fwd_peek_i[j*8+4 +: 4];
                w_q[{i_q[7:4], 3'(j), 1'b1}] <= fwd_peek_i[j*8 +: 4];
              end
              i_q <= i_q + 9'd16;
            end
          end else begin
            i_q     <= '0;
            total_q <= '0;
            for (int k = 0; k < 12; k++) cnt_q[k] <= '0;
            state_q <= TSum;
          end
        end
        TFse: if (fse_done_i) begin
          state_q <= (fse_err_i || fbyte >= dend_q) ? TErr : TS1;
        end
        TS1: if (bwd_err_i) state_q <= TErr;
             else if (bwd_ready_i) begin
               st_q[0] <= 9'(bwd_peek_i >> (6'd32 - 6'(fse_al_i)));
               state_q <= TS2;
             end
        TS2: if (bwd_ready_i) begin
               st_q[1] <= 9'(bwd_peek_i >> (6'd32 - 6'(fse_al_i)));
               which_q <= 1'b0;
               state_q <= (bwd_left_i < $signed((AddrW+5)'(fse_al_i))) ? TErr : TLook;
             end
        TLook: state_q <= TEmit;
        TEmit: if (bwd_ready_i) begin
          // emit the symbol of state `which`, update it, stop on overflow
          if (n_q >= 9'd255) state_q <= TErr;
          else begin
            w_q[n_q[7:0]] <= ent.sym[3:0];
            n_q <= n_q + 9'd1;
            st_q[which_q] <= 9'(ent.base) + 9'((bwd_peek_i >> (6'd32 - 6'(ent.nb))) & 32'h1ff);
            if (ent.nb == 4'd0) st_q[which_q] <= 9'(ent.base);
            which_q <= !which_q;
            // overflow: the other state's entry (read this cycle) is the last weight
            state_q <= (bwd_left_i < $signed((AddrW+5)'(ovf_nb))) ? TLastE : TEmit;
          end
        end
        TLastE: begin
          if (n_q >= 9'd255) state_q <= TErr;
          else begin
            w_q[n_q[7:0]] <= ent.sym[3:0];
            n_q     <= n_q + 9'd1;
            i_q     <= '0;
            total_q <= '0;
            for (int k = 0; k < 12; k++) cnt_q[k] <= '0;
            state_q <= TSum;
          end
        end
        TSum: begin
          if (i_q < n_q) begin
            if (wbad) state_q <= TErr;
            total_q <= total_q + wsum;
            for (int v = 1; v < 12; v++) cnt_q[v] <= cnt_q[v] + 9'(wc[v]);
            i_q <= i_q + 9'd16;
          end else state_q <= TFinal;
        end
        TFinal: begin
          logic [3:0] lw;
          lw = hb13(restv) + 4'd1;
          if (total_q == 13'd0 || mb > 4'd11 || !rest_pow2) state_q <= TErr;
          else if ((cnt_q[1] + ((lw == 4'd1) ? 9'd1 : 9'd0)) < 9'd2 ||
                   ((cnt_q[1] + ((lw == 4'd1) ? 9'd1 : 9'd0)) & 9'd1) != 9'd0) state_q <= TErr;
          else begin
            w_q[n_q[7:0]] <= lw;
            cnt_q[lw]     <= cnt_q[lw] + 9'd1;
            n_q           <= n_q + 9'd1;
            mb_q          <= mb;
            state_q       <= TRank;
          end
        end
        TRank: begin
          logic [11:0] s;
          logic [8:0]  x;
          s = '0;
          x = '0;
          for (int k = 1; k < 12; k++) begin
            rs_q[k]   <= s;
            ri_q[k]   <= x;
            nidx_q[k] <= x;
            s = s + (12'(cnt_q[k]) << (k - 1));
            x = x + cnt_q[k];
          end
          i_q     <= '0;
          state_q <= TSort;
        end
        TSort: begin
          if (i_q < n_q) begin
            if (sfound) begin
              nidx_q[win[spos]] <= nidx_q[win[spos]] + 9'd1;
              i_q <= {i_q[8:4], spos} + 9'd1;
            end else i_q <= {i_q[8:4] + 5'd1, 4'd0};
          end else state_q <= TDone;
        end
        TDone, TErr: state_q <= TIdle;
        default: state_q <= TIdle;
      endcase
    end
  end

  assign done_o     = (state_q == TDone) || (state_q == TErr);
  assign err_o      = (state_q == TErr);
  assign desc_end_o = dend_q;
  assign maxbits_o  = mb_q;
  always_comb begin
    for (int k = 1; k < 12; k++) begin
      rank_start_o[(k-1)*12 +: 12] = rs_q[k];
      rank_idx_o[(k-1)*9 +: 9]     = ri_q[k];
    end
  end

  // ---- assertions: handshakes with the forward reader, the FSE builder, backward reader 0 and the
  // table and sorted-symbol RAMs; the tree's bounds -------------------------------------------------
  `NDP_ASSERT(weights_bound_a, n_q <= 9'd256)
  `NDP_ASSERT(maxbits_a, state_q != TDone || (mb_q >= 4'd1 && mb_q <= 4'd11))
  logic [3:0] sort_w;   // the weight and next sorted index of the symbol written
  logic [8:0] sort_idx;
  assign sort_w   = win[spos];
  assign sort_idx = nidx_q[sort_w];
  `NDP_ASSERT(sort_write_a, !sw_we_o || (sort_w != 4'd0 && sort_w <= 4'd11 && sort_idx < 9'd256))
  `NDP_ASSERT(fse_start_a, !fse_start_o || state_q == THb)
  `NDP_ASSERT(table_read_a, !tr_re_o || state_q == TLook || state_q == TEmit)
  `NDP_ASSERT(bwd_consume_a, bwd_consume_o == '0 || (bwd_ready_i && bwd_consume_o <= 6'd6))
  `NDP_ASSERT(fwd_consume_a, fwd_consume_o == '0 || 8'(fwd_consume_o) <= fwd_nvalid_i)
`ifdef ZSTD_TRACE
  state_e prev_q;
  always_ff @(posedge clk_i) begin
    prev_q <= state_q;
    if (prev_q != state_q) $display("%0t %m: %s", $time, state_q.name());
  end
`endif
endmodule
