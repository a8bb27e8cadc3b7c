// zstd_seq: decodes the Sequences_Section of a compressed block (RFC 8878 section 3.1.1.3.2):
// header, the three FSE tables (predefined, RLE, FSE-compressed or repeat), the backward sequence
// bitstream, repeat offsets, and pushes checked (literal length, match length, offset) commands
// to the executor, then the block's trailing literals.
//
/// Every command is checked before it is pushed: literals within the section, offsets within the
/// bytes the frame produced and within HistBytes, block output within Block_Maximum_Size (bmax_i,
/// ErrBlockSize) and within the room (out capacity, content size; ErrOutput).
/// Two cycles per sequence: QEx reads the three table entries (one table RAM each, read the cycle
/// before) and all extra bits when they fit the 32-bit peek (else one field per cycle, QOf/QMl/QLl);
/// QRes checks the command, pushes it and reads the three state updates (<= 26 bits), issuing the
/// next lookups. Bounded: a block stops at 128 KiB output (>= 3 bytes per sequence), so
/// <= 5 x 43691 + table builds cycles plus executor back-pressure.
`include "ndp_assert.svh"

module zstd_seq #(
  parameter int unsigned AddrW    = 17,
  parameter int unsigned HistBytes = 65536
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               frame_start_i,   // repeat offsets 1,4,8; no tables
  input  logic               start_i,
  input  logic [AddrW:0]     sec_begin_i,
  input  logic [AddrW:0]     blk_end_i,
  input  logic [17:0]        lit_size_i,
  input  logic [31:0]        fpos_i,          // bytes produced by the frame before this block
  input  logic [31:0]        room_i,          // bytes the block may still produce (cap, FCS)
  input  logic [17:0]        bmax_i,          // Block_Maximum_Size: min(Window_Size, 128 KiB)
  output logic               done_o,
  output logic               err_o,
  output zstd_pkg::err_e     code_o,
  output logic [17:0]        blk_out_o,       // bytes this block produces (valid at done_o)
  // command stream to the executor
  output logic               cmd_valid_o,
  input  logic               cmd_ready_i,
  output logic [17:0]        cmd_ll_o,
  output logic [17:0]        cmd_ml_o,
  output logic [16:0]        cmd_off_o,
  // forward reader
  output logic               fwd_init_o,
  output logic [AddrW-1:0]   fwd_init_addr_o,
  output logic [6:0]         fwd_consume_o,
  input  logic [63:0]        fwd_peek_i,
  input  logic [7:0]         fwd_nvalid_i,
  input  logic [AddrW+3:0]   fwd_bitpos_i,
  // FSE table builder
  output logic               fse_start_o,
  output logic [1:0]         fse_mode_o,
  output logic [1:0]         fse_kind_o,
  output logic [7:0]         fse_rle_o,
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
  // sequence table RAMs (LL, OF, ML; 512 entries each): one read of all three per lookup
  output logic               tab_re_o,
  output logic [26:0]        tab_addr_o,      // {ML, OF, LL} states
  input  logic [62:0]        tab_data_i       // {ML, OF, LL} entries (zstd_pkg::fse_ent_t)
);
  typedef enum logic [4:0] {QIdle, QInit, QHdr, QTab, QRle, QBuild, QBinit, QSt0, QSt1, QSt2,
                            QLk, QEx, QOf, QMl, QLl, QRes, QEnd, QTail, QDone, QErr} state_e;
  state_e state_q;

  logic [AddrW:0]  beg_q, bend_q;
  logic [17:0]     lsz_q, lused_q, bout_q;
  logic [31:0]     fpos_q, room_q;
  logic [17:0]     bmax_q;
  logic [16:0]     nseq_q;
  logic [7:0]      modes_q;
  logic [1:0]      t_q;                 // table being set up: 0 LL, 1 OF, 2 ML
  logic [3:0]      al_q [3];
  logic            tv_q [3];
  logic [8:0]      st_q [3];
  // one register per table (Yosys 0.23 mis-resolves fields of arrays of structs)
  zstd_pkg::fse_ent_t e0_q, e1_q, e2_q;
  logic [31:0]     rep_q [3];
  logic [31:0]     ofv_q;
  logic [17:0]     ll_q, ml_q;
  zstd_pkg::err_e  code_q;

  logic [AddrW:0] fbyte;
  assign fbyte = fwd_bitpos_i[AddrW+3:3];

  // Code tables (RFC 8878 section 3.1.1.3.2.1.1).
  function automatic logic [16:0] ll_base(input logic [5:0] c);
    unique case (c)
      6'd16: ll_base = 17'd16;  6'd17: ll_base = 17'd18;  6'd18: ll_base = 17'd20;
      6'd19: ll_base = 17'd22;  6'd20: ll_base = 17'd24;  6'd21: ll_base = 17'd28;
      6'd22: ll_base = 17'd32;  6'd23: ll_base = 17'd40;  6'd24: ll_base = 17'd48;
      6'd25: ll_base = 17'd64;  6'd26: ll_base = 17'd128; 6'd27: ll_base = 17'd256;
      6'd28: ll_base = 17'd512; 6'd29: ll_base = 17'd1024; 6'd30: ll_base = 17'd2048;
      6'd31: ll_base = 17'd4096; 6'd32: ll_base = 17'd8192; 6'd33: ll_base = 17'd16384;
      6'd34: ll_base = 17'd32768; 6'd35: ll_base = 17'd65536;
      default: ll_base = 17'(c);
    endcase
  endfunction
  function automatic logic [4:0] ll_bits(input logic [5:0] c);
    unique case (c)
      6'd16, 6'd17, 6'd18, 6'd19: ll_bits = 5'd1;
      6'd20, 6'd21: ll_bits = 5'd2;
      6'd22, 6'd23: ll_bits = 5'd3;
      6'd24: ll_bits = 5'd4; 6'd25: ll_bits = 5'd6; 6'd26: ll_bits = 5'd7; 6'd27: ll_bits = 5'd8;
      6'd28: ll_bits = 5'd9; 6'd29: ll_bits = 5'd10; 6'd30: ll_bits = 5'd11; 6'd31: ll_bits = 5'd12;
      6'd32: ll_bits = 5'd13; 6'd33: ll_bits = 5'd14; 6'd34: ll_bits = 5'd15; 6'd35: ll_bits = 5'd16;
      default: ll_bits = 5'd0;
    endcase
  endfunction
  function automatic logic [16:0] ml_base(input logic [5:0] c);
    unique case (c)
      6'd32: ml_base = 17'd35;  6'd33: ml_base = 17'd37;  6'd34: ml_base = 17'd39;
      6'd35: ml_base = 17'd41;  6'd36: ml_base = 17'd43;  6'd37: ml_base = 17'd47;
      6'd38: ml_base = 17'd51;  6'd39: ml_base = 17'd59;  6'd40: ml_base = 17'd67;
      6'd41: ml_base = 17'd83;  6'd42: ml_base = 17'd99;  6'd43: ml_base = 17'd131;
      6'd44: ml_base = 17'd259; 6'd45: ml_base = 17'd515; 6'd46: ml_base = 17'd1027;
      6'd47: ml_base = 17'd2051; 6'd48: ml_base = 17'd4099; 6'd49: ml_base = 17'd8195;
      6'd50: ml_base = 17'd16387; 6'd51: ml_base = 17'd32771; 6'd52: ml_base = 17'd65539;
      default: ml_base = 17'(c) + 17'd3;
    endcase
  endfunction
  function automatic logic [4:0] ml_bits(input logic [5:0] c);
    unique case (c)
      6'd32, 6'd33, 6'd34, 6'd35: ml_bits = 5'd1;
      6'd36, 6'd37: ml_bits = 5'd2;
      6'd38, 6'd39: ml_bits = 5'd3;
      6'd40, 6'd41: ml_bits = 5'd4;
      6'd42: ml_bits = 5'd5; 6'd43: ml_bits = 5'd7; 6'd44: ml_bits = 5'd8; 6'd45: ml_bits = 5'd9;
      6'd46: ml_bits = 5'd10; 6'd47: ml_bits = 5'd11; 6'd48: ml_bits = 5'd12; 6'd49: ml_bits = 5'd13;
      6'd50: ml_bits = 5'd14; 6'd51: ml_bits = 5'd15; 6'd52: ml_bits = 5'd16;
      default: ml_bits = 5'd0;
    endcase
  endfunction
  function automatic logic [31:0] take(input logic [31:0] p, input logic [5:0] n);
    take = (n == 6'd0) ? 32'd0 : (p >> (6'd32 - n));
  endfunction

  logic [1:0] mode_t;
  assign mode_t = (t_q == 2'd0) ? modes_q[7:6] : (t_q == 2'd1) ? modes_q[5:4] : modes_q[3:2];
  logic [1:0] kind_t;
  assign kind_t = (t_q == 2'd0) ? zstd_pkg::TabLL : (t_q == 2'd1) ? zstd_pkg::TabOF : zstd_pkg::TabML;
  logic [7:0] maxsym_t;
  assign maxsym_t = (t_q == 2'd0) ? 8'd35 : (t_q == 2'd1) ? 8'd31 : 8'd52;

  // Sequence header fields (RFC 8878 section 3.1.1.3.2.1): Number_of_Sequences in 1, 2 or 3
  // bytes (hlen), then the Symbol_Compression_Modes byte unless the count is 0 (in any form: the
  // 2-byte form 0x80 0x00 is valid, RFC 8878 errata), in which case the section ends there.
  logic [7:0]  b0, b1, b2;
  logic [16:0] hn;
  logic [1:0]  hlen;
  logic        hzero;       // Number_of_Sequences = 0: no modes byte
  logic [2:0]  hbytes;      // header bytes: hlen, plus the modes byte
  always_comb begin
    b0 = fwd_peek_i[7:0];
    b1 = fwd_peek_i[15:8];
    b2 = fwd_peek_i[23:16];
    if (b0 < 8'd128) begin hn = 17'(b0); hlen = 2'd1; end
    else if (b0 < 8'd255) begin hn = {1'b0, b0 - 8'd128, b1}; hlen = 2'd2; end
    else begin hn = 17'({b2, b1}) + 17'h7F00; hlen = 2'd3; end
    hzero  = hn == '0;
    hbytes = 3'(hlen) + (hzero ? 3'd0 : 3'd1);
  end

  // Offset resolution (RFC 8878 section 3.2.2 "Repeat offsets").
  logic [31:0] roff, r0n, r1n, r2n;
  logic [1:0]  ridx;
  always_comb begin
    r0n = rep_q[0]; r1n = rep_q[1]; r2n = rep_q[2];
    ridx = 2'(ofv_q - 32'd1) + ((ll_q == '0) ? 2'd1 : 2'd0);
    if (ofv_q > 32'd3) begin
      roff = ofv_q - 32'd3;
      r2n = rep_q[1]; r1n = rep_q[0]; r0n = roff;
    end else begin
      unique case (ridx)
        2'd0: roff = rep_q[0];
        2'd1: begin roff = rep_q[1]; r1n = rep_q[0]; r0n = roff; end
        2'd2: begin roff = rep_q[2]; r2n = rep_q[1]; r1n = rep_q[0]; r0n = roff; end
        default: begin roff = rep_q[0] - 32'd1; r2n = rep_q[1]; r1n = rep_q[0]; r0n = roff; end
      endcase
    end
  end

  // QEx: the three entries straight from the table RAMs and their extra bits from one peek
  zstd_pkg::fse_ent_t x0, x1, x2;
  assign x0 = tab_data_i[20:0];
  assign x1 = tab_data_i[41:21];
  assign x2 = tab_data_i[62:42];
  logic [5:0]  xob, xmb, xlb;
  logic [6:0]  xn;
  logic [31:0] xp1, xp2;
  assign xob = 6'(x1.sym[4:0]);
  assign xmb = 6'(ml_bits(x2.sym[5:0]));
  assign xlb = 6'(ll_bits(x0.sym[5:0]));
  assign xn  = 7'(xob) + 7'(xmb) + 7'(xlb);
  assign xp1 = bwd_peek_i << xob;
  assign xp2 = xp1 << xmb;
  logic fast;    // all extra bits fit the peek
  assign fast = xn <= 7'd32;
  // QRes: the three state updates (LL, ML, OF order) from one peek
  logic [31:0] up1, up2;
  logic [8:0]  nst0, nst1, nst2;
  assign up1  = bwd_peek_i << e0_q.nb;
  assign up2  = up1 << e2_q.nb;
  assign nst0 = 9'(e0_q.base) + 9'(take(bwd_peek_i, 6'(e0_q.nb)));
  assign nst2 = 9'(e2_q.base) + 9'(take(up1, 6'(e2_q.nb)));
  assign nst1 = 9'(e1_q.base) + 9'(take(up2, 6'(e1_q.nb)));
  logic last_seq;
  assign last_seq = nseq_q == 17'd1;
  // QRes checks (registered fields, stable while the command waits)
  logic [31:0] avail;   // bytes before the match start
  assign avail = fpos_q + 32'(bout_q) + 32'(ll_q);
  logic r_lits, r_bmax, r_room, r_off, r_hist, r_ok;
  logic [31:0] r_end;   // block output after this sequence
  assign r_end  = 32'(bout_q) + 32'(ll_q) + 32'(ml_q);
  assign r_lits = 32'(lused_q) + 32'(ll_q) > 32'(lsz_q);
  assign r_bmax = r_end > 32'(bmax_q);
  assign r_room = r_end > room_q;
  assign r_off  = roff == 32'd0 || roff > avail;
  assign r_hist = roff > 32'(HistBytes);
  assign r_ok   = !r_lits && !r_bmax && !r_room && !r_off && !r_hist;

  logic            unused_bits;   // offsets above 2^17 are rejected before a command is pushed
  assign unused_bits = ^{fwd_peek_i[63:32], fwd_bitpos_i[2:0], modes_q[1:0], roff[31:17]};

  logic [5:0] rd_n;
  always_comb begin
    fwd_init_o      = 1'b0;
    fwd_init_addr_o = beg_q[AddrW-1:0];
    fwd_consume_o   = '0;
    fse_start_o     = 1'b0;
    fse_mode_o      = mode_t;
    fse_kind_o      = kind_t;
    fse_rle_o       = fwd_peek_i[7:0];
    bwd_init_o      = 1'b0;
    bwd_begin_o     = fbyte;
    bwd_end_o       = bend_q;
    bwd_consume_o   = '0;
    tab_re_o        = 1'b0;
    tab_addr_o      = {st_q[2], st_q[1], st_q[0]};
    rd_n            = '0;
    unique case (state_q)
      QInit: fwd_init_o = 1'b1;
      QHdr: if (fwd_nvalid_i >= 8'd32) fwd_consume_o = 7'({hbytes, 3'b000});
      QTab: if (t_q != 2'd3 && (mode_t == 2'd0 || mode_t == 2'd2)) fse_start_o = 1'b1;
      QRle: if (fwd_nvalid_i >= 8'd8) begin
              fwd_consume_o = 7'd8;
              fse_start_o   = (fwd_peek_i[7:0] <= maxsym_t);
            end
      QBinit: bwd_init_o = (fbyte < bend_q);
      QSt0: rd_n = 6'(al_q[0]);
      QSt1: rd_n = 6'(al_q[1]);
      QSt2: rd_n = 6'(al_q[2]);
      QLk: tab_re_o = 1'b1;
      QEx: if (fast) rd_n = 6'(xn);
      QOf: rd_n = 6'(e1_q.sym[4:0]);
      QMl: rd_n = 6'(ml_bits(e2_q.sym[5:0]));
      QLl: rd_n = 6'(ll_bits(e0_q.sym[5:0]));
      QRes: if (!last_seq) begin
              rd_n = 6'(e0_q.nb) + 6'(e1_q.nb) + 6'(e2_q.nb);
              // the next lookup, issued with the push
              tab_re_o   = r_ok && cmd_ready_i && bwd_ready_i;
              tab_addr_o = {nst2, nst1, nst0};
            end
      default: ;
    endcase
    if (bwd_ready_i && (state_q == QSt0 || state_q == QSt1 || state_q == QSt2 || state_q == QOf ||
                        state_q == QMl || state_q == QLl || (state_q == QEx && fast)))
      bwd_consume_o = rd_n;
    if (state_q == QRes && !last_seq && r_ok && cmd_ready_i && bwd_ready_i) bwd_consume_o = rd_n;
  end

  logic [31:0] bits;
  assign bits = take(bwd_peek_i, rd_n);
  logic rd_ok;
  assign rd_ok = bwd_ready_i;

  // a sequence's command goes out from QRes once its checks pass and its state updates can be read
  assign cmd_valid_o = (state_q == QRes && r_ok && (last_seq || bwd_ready_i)) || (state_q == QTail);
  assign cmd_ll_o    = (state_q == QTail) ? lsz_q - lused_q : ll_q;
  assign cmd_ml_o    = (state_q == QTail) ? 18'd0 : ml_q;
  assign cmd_off_o   = (state_q == QTail) ? 17'd0 : 17'(roff);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= QIdle;
      beg_q <= '0; bend_q <= '0; lsz_q <= '0; lused_q <= '0; bout_q <= '0; fpos_q <= '0;
      room_q <= '0; bmax_q <= '0; nseq_q <= '0; modes_q <= '0; t_q <= '0; ofv_q <= '0; ll_q <= '0; ml_q <= '0;
      code_q <= zstd_pkg::ErrNone;
      for (int k = 0; k < 3; k++) begin
        al_q[k] <= '0; tv_q[k] <= 1'b0; st_q[k] <= '0;
      end
      e0_q <= '0; e1_q <= '0; e2_q <= '0;
      rep_q[0] <= 32'd1; rep_q[1] <= 32'd4; rep_q[2] <= 32'd8;
    end else begin
      if (frame_start_i) begin
        rep_q[0] <= 32'd1; rep_q[1] <= 32'd4; rep_q[2] <= 32'd8;
        for (int k = 0; k < 3; k++) tv_q[k] <= 1'b0;
      end
      unique case (state_q)
        QIdle: if (start_i) begin
          beg_q   <= sec_begin_i;
          bend_q  <= blk_end_i;
          lsz_q   <= lit_size_i;
          fpos_q  <= fpos_i;
          room_q  <= room_i;
          bmax_q  <= bmax_i;
          lused_q <= '0;
          bout_q  <= '0;
          code_q  <= zstd_pkg::ErrSequences;
          state_q <= (sec_begin_i >= blk_end_i) ? QErr : QInit;
        end
        QInit: state_q <= QHdr;
        QHdr: if (fwd_nvalid_i >= 8'd32) begin
          if (hzero) begin
            nseq_q  <= '0;
            state_q <= (beg_q + (AddrW+1)'(hlen) != bend_q) ? QErr : QEnd;
          end else begin
            nseq_q  <= hn;
            modes_q <= (hlen == 2'd1) ? b1 : (hlen == 2'd2) ? b2 : fwd_peek_i[31:24];
            t_q     <= '0;
            if (((hlen == 2'd1) ? b1[1:0] : (hlen == 2'd2) ? b2[1:0] : fwd_peek_i[25:24]) != 2'd0 ||
                beg_q + (AddrW+1)'(hlen) + 1'b1 > bend_q) state_q <= QErr;
            else state_q <= QTab;
          end
        end
        QTab: begin
          if (t_q == 2'd3) state_q <= QBinit;
          else unique case (mode_t)
            2'd0, 2'd2: state_q <= QBuild;
            2'd1: state_q <= QRle;
            default: begin
              if (!tv_q[t_q]) begin
                code_q  <= zstd_pkg::ErrNoTable;
                state_q <= QErr;
              end else t_q <= t_q + 2'd1;
            end
          endcase
        end
        QRle: if (fwd_nvalid_i >= 8'd8) state_q <= (fwd_peek_i[7:0] > maxsym_t) ? QErr : QBuild;
        QBuild: if (fse_done_i) begin
          if (fse_err_i) begin
            code_q  <= zstd_pkg::ErrFse;
            tv_q[t_q] <= 1'b0;
            state_q <= QErr;
          end else begin
            al_q[t_q] <= fse_al_i;
            tv_q[t_q] <= 1'b1;
            t_q       <= t_q + 2'd1;
            state_q   <= (fbyte > bend_q) ? QErr : QTab;
          end
        end
        QBinit: state_q <= (fbyte < bend_q) ? QSt0 : QErr;
        QSt0: if (bwd_err_i) state_q <= QErr; else if (rd_ok) begin st_q[0] <= 9'(bits); state_q <= QSt1; end
        QSt1: if (rd_ok) begin st_q[1] <= 9'(bits); state_q <= QSt2; end
        QSt2: if (rd_ok) begin st_q[2] <= 9'(bits); state_q <= QLk; end
        QLk: state_q <= QEx;
        QEx: begin
          // the entries are on the RAM outputs (held while re is low)
          e0_q <= x0;
          e1_q <= x1;
          e2_q <= x2;
          if (!fast) state_q <= QOf;
          else if (rd_ok) begin
            ofv_q   <= (32'd1 << xob) + take(bwd_peek_i, xob);
            ml_q    <= 18'(ml_base(x2.sym[5:0])) + 18'(take(xp1, xmb));
            ll_q    <= 18'(ll_base(x0.sym[5:0])) + 18'(take(xp2, xlb));
            state_q <= QRes;
          end
        end
        QOf: if (rd_ok) begin ofv_q <= (32'd1 << e1_q.sym[4:0]) + bits; state_q <= QMl; end
        QMl: if (rd_ok) begin ml_q <= 18'(ml_base(e2_q.sym[5:0])) + 18'(bits); state_q <= QLl; end
        QLl: if (rd_ok) begin ll_q <= 18'(ll_base(e0_q.sym[5:0])) + 18'(bits); state_q <= QRes; end
        QRes: begin
          if (r_lits) state_q <= QErr;
          else if (r_bmax) begin
            code_q  <= zstd_pkg::ErrBlockSize;   // decoded size above Block_Maximum_Size
            state_q <= QErr;
          end else if (r_room) begin
            code_q  <= zstd_pkg::ErrOutput;
            state_q <= QErr;
          end else if (r_off) begin
            code_q  <= zstd_pkg::ErrOffset;
            state_q <= QErr;
          end else if (r_hist) begin
            code_q  <= zstd_pkg::ErrHistory;   // valid offset, but beyond the history buffer
            state_q <= QErr;
          end else if (cmd_valid_o && cmd_ready_i) begin
            rep_q[0] <= r0n; rep_q[1] <= r1n; rep_q[2] <= r2n;
            lused_q <= lused_q + ll_q;
            bout_q  <= bout_q + ll_q + ml_q;
            nseq_q  <= nseq_q - 17'd1;
            if (last_seq) state_q <= QEnd;
            else begin
              st_q[0] <= nst0;
              st_q[1] <= nst1;
              st_q[2] <= nst2;
              state_q <= QEx;   // the lookup was issued with the push
            end
          end
        end
        QEnd: begin
          if (lsz_q == lused_q) state_q <= QDone;
          else if (32'(bout_q) + 32'(18'(lsz_q - lused_q)) > 32'(bmax_q)) begin
            code_q  <= zstd_pkg::ErrBlockSize;
            state_q <= QErr;
          end else if (32'(bout_q) + 32'(18'(lsz_q - lused_q)) > room_q) begin
            code_q  <= zstd_pkg::ErrOutput;
            state_q <= QErr;
          end else state_q <= QTail;
        end
        QTail: if (cmd_ready_i) begin
          bout_q  <= bout_q + (lsz_q - lused_q);
          lused_q <= lsz_q;
          state_q <= QDone;
        end
        QDone, QErr: state_q <= QIdle;
        default: state_q <= QIdle;
      endcase
      // the bitstream must be consumed exactly after the last sequence
      if (state_q == QRes && cmd_valid_o && cmd_ready_i && last_seq && bwd_left_i != '0) state_q <= QErr;
    end
  end

  assign done_o    = (state_q == QDone) || (state_q == QErr);
  assign err_o     = (state_q == QErr);
  assign code_o    = code_q;
  assign blk_out_o = bout_q;

  // ---- assertions: handshakes with zstd_frame, the readers, the FSE builder, the table RAMs and
  // the command queue; the block's bounds ---------------------------------------------------------
  logic in_seq;   // a sequence is being decoded
  assign in_seq = state_q == QEx || state_q == QOf || state_q == QMl || state_q == QLl || state_q == QRes;
  `NDP_ASSERT(start_idle_a, !start_i || state_q == QIdle)
  `NDP_ASSERT_STREAM(cmd_stable_a, cmd_valid_o, cmd_ready_i, {cmd_ll_o, cmd_ml_o, cmd_off_o})
  `NDP_ASSERT(cmd_checked_a, !(cmd_valid_o && state_q == QRes) ||
              (r_ok && cmd_off_o != '0 && 32'(cmd_off_o) <= HistBytes))
  `NDP_ASSERT(seq_left_a, !in_seq || nseq_q != '0)
  `NDP_ASSERT(lits_bound_a, lused_q <= lsz_q)
  `NDP_ASSERT(block_bound_a, state_q == QIdle || (32'(bout_q) <= 32'(bmax_q) && bmax_q <= 18'd131072))
  `NDP_ASSERT(tab_read_a, !tab_re_o || state_q == QLk || state_q == QRes)
  `NDP_ASSERT(fse_start_a, !fse_start_o || state_q == QTab || state_q == QRle)
  `NDP_ASSERT(bwd_consume_a, bwd_consume_o == '0 || bwd_ready_i)
  `NDP_ASSERT(fwd_consume_a, fwd_consume_o == '0 || 8'(fwd_consume_o) <= fwd_nvalid_i)
`ifdef ZSTD_TRACE
  state_e prev_q;
  always_ff @(posedge clk_i) begin
    prev_q <= state_q;
    if (prev_q != state_q) $display("%0t %m: %s", $time, state_q.name());
  end
`endif
endmodule
