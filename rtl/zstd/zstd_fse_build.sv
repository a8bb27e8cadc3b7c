// zstd_fse_build: builds one FSE decoding table (RFC 8878 section 4.1.1) in the shared table RAM:
// predefined distributions, RLE (one symbol, accuracy 0) or an FSE_Table_Description read from the
// forward bit reader (which is left byte aligned after the description).
//
/// One step per cycle: header symbol, zero-repeat field, low-probability placement, spread
/// position or table entry. Bounded: <= 2 x 2^AL + max symbols + header bits cycles.
/// Registers: normalized counts and symbol counters (64 symbols), the FSM and its counters.
`include "ndp_assert.svh"

module zstd_fse_build (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,
  input  logic [1:0]  mode_i,     // 0 predefined, 1 RLE, 2 FSE description
  input  logic [1:0]  kind_i,     // zstd_pkg::TabLL/TabOF/TabML/TabHW
  input  logic [7:0]  rle_sym_i,
  output logic        done_o,     // one-cycle pulse
  output logic        err_o,      // with done_o: bad description
  output logic [3:0]  al_o,       // accuracy log of the finished table (valid at done_o)
  // forward bit reader
  output logic [6:0]  fwd_consume_o,
  input  logic [63:0] fwd_peek_i,
  input  logic [7:0]  fwd_nvalid_i,
  input  logic [2:0]  fwd_bitpos_i,
  // table RAM (entries zstd_pkg::fse_ent_t, address {kind, state})
  output logic        tw_we_o,
  output logic [10:0] tw_addr_o,
  output logic [20:0] tw_data_o,
  output logic        tr_re_o,
  output logic [10:0] tr_addr_o,
  input  logic [20:0] tr_data_i
);
  localparam logic [255:0] PredLL = 256'h0000000000000000000000000000ffff11111232222222221112222222222234;
  localparam logic [255:0] PredML = 256'h00000000000fffffff1111111111111111111111111111111111111222222341;
  localparam logic [255:0] PredOF = 256'h00000000000000000000000000000000000fffff111111111111111222111111;

  typedef enum logic [3:0] {SIdle, SAl, SHdr, SAlign, SInit, SHi, SSpread, SP2, SDone, SErr} state_e;
  state_e state_q;

  logic signed [10:0] norm_q [64];
  logic [9:0]         nxt_q [64];
  logic [1:0]         kind_q;
  logic [3:0]         al_q;
  logic [6:0]         sym_q, nsym_q, maxsym;
  logic signed [11:0] rem_q;
  logic [10:0]        thr_q;     // threshold (power of two)
  logic [3:0]         nbits_q;
  logic               prev0_q;
  logic [9:0]         high_q, pos_q, cnt_q, u_q, pu_q, step, mask;
  logic               pv_q;
  logic [3:0]         maxal;

  function automatic logic [3:0] hb10(input logic [9:0] x);
    hb10 = 4'd0;
    for (int i = 0; i < 10; i++) if (x[i]) hb10 = 4'(i);
  endfunction
  function automatic logic [3:0] hb12(input logic [11:0] x);
    hb12 = 4'd0;
    for (int i = 0; i < 12; i++) if (x[i]) hb12 = 4'(i);
  endfunction

  always_comb begin
    unique case (kind_q)
      zstd_pkg::TabLL: begin maxsym = 7'd35; maxal = 4'd9; end
      zstd_pkg::TabOF: begin maxsym = 7'd31; maxal = 4'd8; end
      zstd_pkg::TabML: begin maxsym = 7'd52; maxal = 4'd9; end
      default:         begin maxsym = 7'd11; maxal = 4'd6; end
    endcase
    mask = 10'((11'd1 << al_q) - 11'd1);
    step = 10'((11'd1 << al_q) >> 1) + 10'((11'd1 << al_q) >> 3) + 10'd3;
  end

  // Header step (one symbol probability), RFC 8878 "FSE Table Description".
  logic [11:0]        hv, hlow, hmax, hcount;
  logic [3:0]         hused;
  logic signed [11:0] hprob;
  always_comb begin
    hv    = 12'(fwd_peek_i) & ((12'(thr_q) << 1) - 12'd1);
    hlow  = hv & (12'(thr_q) - 12'd1);
    hmax  = ((12'(thr_q) << 1) - 12'd1) - 12'(rem_q);
    if (hlow < hmax) begin
      hcount = hlow;
      hused  = nbits_q - 4'd1;
    end else begin
      hcount = (hv >= 12'(thr_q)) ? hv - hmax : hv;
      hused  = nbits_q;
    end
    hprob = $signed(hcount) - 12'sd1;
  end

  // Table RAM ports.
  zstd_pkg::fse_ent_t went, rent;
  assign rent = tr_data_i;
  logic unused_bits;   // the symbol of a read entry is all that is used; pu_q < 512
  assign unused_bits = ^{fwd_peek_i[63:12], pu_q[9], rent.nb, rent.base};
  logic signed [10:0] cur_norm;
  assign cur_norm = norm_q[sym_q[5:0]];
  logic [7:0] rs;
  logic [9:0] ns;
  logic [3:0] nbo;
  assign rs  = rent.sym;
  assign ns  = nxt_q[rs[5:0]];
  assign nbo = al_q - hb10(ns);

  always_comb begin
    tw_we_o   = 1'b0;
    tw_addr_o = {kind_q, 9'd0};
    went      = '0;
    tr_re_o   = 1'b0;
    tr_addr_o = {kind_q, u_q[8:0]};
    fwd_consume_o = '0;
    unique case (state_q)
      SIdle: if (start_i && mode_i == 2'd1) begin
             tw_we_o   = 1'b1;
             tw_addr_o = {kind_i, 9'd0};
             went.sym  = rle_sym_i;
           end
      SAl: if (fwd_nvalid_i >= 8'd16) fwd_consume_o = 7'd4;
      SHdr: if (fwd_nvalid_i >= 8'd16 && rem_q > 12'sd1 && sym_q <= maxsym)
              fwd_consume_o = prev0_q ? 7'd2 : 7'(hused);
      SAlign: fwd_consume_o = {4'd0, 3'(3'd0 - fwd_bitpos_i)};   // to the next byte boundary
      SHi: if (sym_q < nsym_q && cur_norm == -11'sd1) begin
             tw_we_o   = 1'b1;
             tw_addr_o = {kind_q, high_q[8:0]};
             went.sym  = 8'(sym_q);
           end
      SSpread: if (pos_q <= high_q && sym_q < nsym_q && cur_norm > 11'sd0 && cnt_q < 10'(cur_norm)) begin
             tw_we_o   = 1'b1;
             tw_addr_o = {kind_q, pos_q[8:0]};
             went.sym  = 8'(sym_q);
           end
      SP2: begin
             tr_re_o = (u_q <= mask);
             if (pv_q) begin
               tw_we_o   = 1'b1;
               tw_addr_o = {kind_q, pu_q[8:0]};
               went.sym  = rs;
               went.nb   = nbo;
               went.base = 9'((ns << nbo) - (10'd1 << al_q));
             end
           end
      default: ;
    endcase
    tw_data_o = went;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= SIdle;
      kind_q <= '0; al_q <= '0; sym_q <= '0; nsym_q <= '0; rem_q <= '0; thr_q <= '0;
      nbits_q <= '0; prev0_q <= 1'b0; high_q <= '0; pos_q <= '0; cnt_q <= '0; u_q <= '0;
      pu_q <= '0; pv_q <= 1'b0;
    end else begin
      unique case (state_q)
        SIdle: if (start_i) begin
          kind_q <= kind_i;
          sym_q  <= '0;
          unique case (mode_i)
            2'd0: begin
              al_q <= (kind_i == zstd_pkg::TabOF) ? 4'd5 : 4'd6;
              nsym_q <= (kind_i == zstd_pkg::TabLL) ? 7'd36 : (kind_i == zstd_pkg::TabML) ? 7'd53 : 7'd29;
              for (int i = 0; i < 64; i++) begin
                logic [255:0] v;
                v = (kind_i == zstd_pkg::TabLL) ? PredLL : (kind_i == zstd_pkg::TabML) ? PredML : PredOF;
                norm_q[i] <= 11'($signed(v[4*i +: 4]));
              end
              state_q <= SInit;
            end
            2'd1: state_q <= SDone;  // entry 0 written below
            default: begin
              for (int i = 0; i < 64; i++) norm_q[i] <= '0;
              state_q <= SAl;
            end
          endcase
          if (mode_i == 2'd1) al_q <= 4'd0;
        end
        SAl: if (fwd_nvalid_i >= 8'd16) begin
          al_q    <= fwd_peek_i[3:0] + 4'd5;
          rem_q   <= 12'sd1 + $signed(12'(12'd1 << (fwd_peek_i[3:0] + 4'd5)));
          thr_q   <= 11'(11'd1 << (fwd_peek_i[3:0] + 4'd5));
          nbits_q <= fwd_peek_i[3:0] + 4'd6;
          prev0_q <= 1'b0;
          state_q <= (5'(fwd_peek_i[3:0]) + 5'd5 > 5'(maxal)) ? SErr : SHdr;
        end
        SHdr: if (fwd_nvalid_i >= 8'd16) begin
          if (rem_q <= 12'sd1 || sym_q > maxsym) begin
            nsym_q  <= sym_q;
            state_q <= (rem_q != 12'sd1 || sym_q > maxsym + 7'd1) ? SErr : SAlign;
          end else if (prev0_q) begin
            if (sym_q + 7'(fwd_peek_i[1:0]) > maxsym) state_q <= SErr;
            sym_q <= sym_q + 7'(fwd_peek_i[1:0]);
            if (fwd_peek_i[1:0] != 2'd3) prev0_q <= 1'b0;
          end else begin
            norm_q[sym_q[5:0]] <= 11'(hprob);
            sym_q   <= sym_q + 7'd1;
            prev0_q <= (hprob == 12'sd0);
            begin
              logic signed [11:0] r;
              r = rem_q - ((hprob < 0) ? -hprob : hprob);
              rem_q <= r;
              if (r >= 12'sd1 && r < $signed({1'b0, thr_q})) begin
                nbits_q <= hb12(12'(r)) + 4'd1;
                thr_q   <= 11'(11'd1 << hb12(12'(r)));
              end
            end
          end
        end
        SAlign: state_q <= SInit;
        SInit: begin
          sym_q   <= '0;
          high_q  <= mask;
          state_q <= SHi;
        end
        SHi: begin
            if (sym_q < nsym_q) begin
            if (cur_norm == -11'sd1) begin
              nxt_q[sym_q[5:0]] <= 10'd1;
              high_q <= high_q - 10'd1;
            end else begin
              nxt_q[sym_q[5:0]] <= 10'(cur_norm);
            end
            sym_q <= sym_q + 7'd1;
          end else begin
            sym_q   <= '0;
            pos_q   <= '0;
            cnt_q   <= '0;
            state_q <= SSpread;
          end
        end
        SSpread: begin
          if (sym_q >= nsym_q) begin
            u_q     <= '0;
            pv_q    <= 1'b0;
            state_q <= (pos_q != 10'd0) ? SErr : SP2;
          end else if (pos_q > high_q) begin
            pos_q <= (pos_q + step) & mask;
          end else if (cur_norm > 11'sd0 && cnt_q < 10'(cur_norm)) begin
            pos_q <= (pos_q + step) & mask;
            cnt_q <= cnt_q + 10'd1;
          end else begin
            sym_q <= sym_q + 7'd1;
            cnt_q <= '0;
          end
        end
        SP2: begin
          pv_q <= tr_re_o;
          pu_q <= u_q;
          if (tr_re_o) u_q <= u_q + 10'd1;
          if (pv_q) nxt_q[rs[5:0]] <= ns + 10'd1;
          if (!tr_re_o && !pv_q) state_q <= SDone;
        end
        SDone, SErr: state_q <= SIdle;
        default: state_q <= SIdle;
      endcase
    end
  end

  assign done_o = (state_q == SDone) || (state_q == SErr);
  assign err_o  = (state_q == SErr);
  assign al_o   = al_q;

  `NDP_ASSERT(pred_kind_a, !(state_q == SIdle && start_i && mode_i == 2'd0) || kind_i != zstd_pkg::TabHW)
`ifdef ZSTD_TRACE
  state_e prev_q;
  always_ff @(posedge clk_i) begin
    prev_q <= state_q;
    if (prev_q != state_q) $display("%0t %m: %s", $time, state_q.name());
  end
`endif
endmodule
