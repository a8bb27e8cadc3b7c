// zstd_enc_fsew: FSE compression of a Huffman weight series (RFC 8878 "FSE compression of Huffman
// weights") at one accuracy log, exactly as sw/codec fse_weights.cc writes it (docs/spec.md 4.3
// step 3): the normalised distribution, its FSE Table Description, and the 2-state bitstream.
//
/// Steps: normalise (every present weight value gets 1, then each remaining point goes to the value
/// with the largest count x log2((norm+1)/norm), the lowest value on ties: one point per cycle, the
/// gains kept in registers as count x F(norm) with F a 33-bit fixed-point table of log2((n+1)/n),
/// which orders every pair of (count <= 255, norm <= 63) exactly as the model's doubles do); the
/// table description (one symbol per cycle, zero runs as repeat flags); the decoding table spread
/// (one position per cycle) and, per value, its positions in ascending order; then the series coded
/// from its last weight to its first (one weight per cycle), the last two weights' states being the
/// lowest positions of their values. Bits go through a small accumulator into a 128-byte RAM, one
/// byte per cycle; a description longer than 127 bytes is flagged (ok_o low).
`include "ndp_assert.svh"

module zstd_enc_fsew #(
  parameter int unsigned Log = 6           // accuracy log: 5 or 6
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,
  input  logic [8:0]      nw_i,            // weights in the series (3..255), held while busy
  input  logic [12*8-1:0] cnt_i,           // occurrences of weight value v at [8v +: 8]
  output logic [7:0]      w_addr_o,        // weight read port (combinational)
  input  logic [3:0]      w_i,
  output logic            done_o,
  output logic            ok_o,            // a description of at most 127 bytes exists
  output logic [7:0]      len_o,           // its bytes
  input  logic [6:0]      rd_addr_i,       // description read port, data the next cycle
  output logic [7:0]      rd_data_o
);
  localparam int unsigned Size = 1 << Log;
  localparam int unsigned LW   = Log;       // table position bits
  localparam int unsigned Step = (Size >> 1) + (Size >> 3) + 3;

  typedef enum logic [3:0] {FIdle, FNorm, FNc, FNcFlush, FSpread, FList, FEnc0, FEnc1, FEnc,
                            FEnd, FClose, FFlush, FDone} st_e;
  st_e st_q;

  // log2((n+1)/n) x 2^32, rounded
  function automatic logic [32:0] fgain(input logic [5:0] n);
    unique case (n)
        6'd1: fgain = 33'd4294967296;
        6'd2: fgain = 33'd2512394810;
        6'd3: fgain = 33'd1782572486;
        6'd4: fgain = 33'd1382670639;
        6'd5: fgain = 33'd1129724171;
        6'd6: fgain = 33'd955168177;
        6'd7: fgain = 33'd827404309;
        6'd8: fgain = 33'd729822324;
        6'd9: fgain = 33'd652848315;
        6'd10: fgain = 33'd590573138;
        6'd11: fgain = 33'd539151033;
        6'd12: fgain = 33'd495970872;
        6'd13: fgain = 33'd459197304;
        6'd14: fgain = 33'd427502463;
        6'd15: fgain = 33'd399901847;
        6'd16: fgain = 33'd375650043;
        6'd17: fgain = 33'd354172281;
        6'd18: fgain = 33'd335018238;
        6'd19: fgain = 33'd317830077;
        6'd20: fgain = 33'd302319861;
        6'd21: fgain = 33'd288253276;
        6'd22: fgain = 33'd275437702;
        6'd23: fgain = 33'd263713331;
        6'd24: fgain = 33'd252946468;
        6'd25: fgain = 33'd243024404;
        6'd26: fgain = 33'd233851452;
        6'd27: fgain = 33'd225345853;
        6'd28: fgain = 33'd217437328;
        6'd29: fgain = 33'd210065135;
        6'd30: fgain = 33'd203176498;
        6'd31: fgain = 33'd196725349;
        6'd32: fgain = 33'd190671291;
        6'd33: fgain = 33'd184978752;
        6'd34: fgain = 33'd179616287;
        6'd35: fgain = 33'd174555994;
        6'd36: fgain = 33'd169773031;
        6'd37: fgain = 33'd165245207;
        6'd38: fgain = 33'd160952634;
        6'd39: fgain = 33'd156877443;
        6'd40: fgain = 33'd153003527;
        6'd41: fgain = 33'd149316334;
        6'd42: fgain = 33'd145802680;
        6'd43: fgain = 33'd142450596;
        6'd44: fgain = 33'd139249186;
        6'd45: fgain = 33'd136188516;
        6'd46: fgain = 33'd133259502;
        6'd47: fgain = 33'd130453829;
        6'd48: fgain = 33'd127763867;
        6'd49: fgain = 33'd125182601;
        6'd50: fgain = 33'd122703574;
        6'd51: fgain = 33'd120320829;
        6'd52: fgain = 33'd118028864;
        6'd53: fgain = 33'd115822588;
        6'd54: fgain = 33'd113697282;
        6'd55: fgain = 33'd111648571;
        6'd56: fgain = 33'd109672386;
        6'd57: fgain = 33'd107764943;
        6'd58: fgain = 33'd105922716;
        6'd59: fgain = 33'd104142418;
        6'd60: fgain = 33'd102420977;
        6'd61: fgain = 33'd100755521;
        6'd62: fgain = 33'd99143363;
        6'd63: fgain = 33'd97581986;
      default: fgain = '0;
    endcase
  endfunction

  logic [11:0]     pres;
  logic [7:0]      cnt [12];
  logic [6:0]      norm_q [12];
  logic [40:0]     g_q [12];
  logic [6:0]      left_q;
  logic [3:0]      maxv;
  logic [3:0]      ndist;

  always_comb begin
    maxv  = '0;
    ndist = '0;
    for (int v = 0; v < 12; v++) begin
      cnt[v]  = cnt_i[v*8 +: 8];
      pres[v] = cnt[v] != '0;
      if (pres[v]) begin
        maxv  = 4'(v);
        ndist = ndist + 4'd1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // bit accumulator -> description RAM (one byte per cycle)
  logic [31:0] acc_q;
  logic [5:0]  nacc_q;
  logic [7:0]  bi_q;                       // bytes written (saturates at 128)
  logic        add;
  logic [15:0] add_bits;
  logic [4:0]  add_n;
  logic        drain, can_add;
  assign drain   = nacc_q >= 6'd8 || (st_q == FNcFlush || st_q == FFlush) && nacc_q != '0;
  assign can_add = nacc_q < 6'd16;

  ram_1r1w #(.Width(8), .Depth(128)) u_buf (
    .clk_i, .rst_ni,
    .we_i   (drain && !bi_q[7]),
    .waddr_i(bi_q[6:0]),
    .wlane_i(1'b1),
    .wdata_i(acc_q[7:0]),
    .re_i   (1'b1),
    .raddr_i(rd_addr_i),
    .rdata_o(rd_data_o)
  );

  // ---------------------------------------------------------------------------------------------
  // normalisation: the value with the largest gain (first on ties)
  logic [3:0] best;
  always_comb begin
    best = '0;
    for (int v = 11; v >= 0; v--) if (pres[v]) best = 4'(v);
    for (int v = 0; v < 12; v++) if (pres[v] && g_q[v] > g_q[best]) best = 4'(v);
  end

  // ---------------------------------------------------------------------------------------------
  // table description state
  logic [3:0]  sym_q;
  logic [7:0]  rem_q;                      // remaining points + 1
  logic [7:0]  thr_q;
  logic [3:0]  nb_q;
  logic        prev0_q;
  logic [3:0]  nc_sym, nc_z;
  logic [15:0] nc_bits;
  logic [4:0]  nc_n;
  logic [7:0]  nc_rem, nc_thr;
  logic [3:0]  nc_nb;
  always_comb begin
    logic [3:0]  q, r;
    logic signed [9:0] mx, val;
    logic [6:0]  c;
    nc_z = '0;
    if (prev0_q) begin
      for (int z = 11; z >= 0; z--)
        if (32'(sym_q) + z <= 32'(maxv) && norm_q[4'(32'(sym_q) + z)] != '0) nc_z = 4'(z);
    end
    nc_sym = sym_q + nc_z;
    q = nc_z / 3;
    r = nc_z % 3;
    c   = norm_q[nc_sym];
    mx  = 10'sd2 * $signed({2'b0, thr_q}) - 10'sd1 - $signed({2'b0, rem_q});
    val = $signed({3'b0, c}) + 10'sd1;
    if (val >= $signed({2'b0, thr_q})) val = val + mx;
    nc_bits = '0;
    nc_n    = '0;
    if (prev0_q) begin
      nc_bits = 16'((32'd1 << (2 * q)) - 1) | 16'(32'(r) << (2 * q));
      nc_n    = 5'(2 * q + 2);
    end
    nc_bits = nc_bits | 16'(32'(val) << nc_n);
    nc_n    = nc_n + 5'(nb_q) - 5'(val < mx);
    nc_rem  = rem_q - 8'(c);
    nc_thr  = thr_q;
    nc_nb   = nb_q;
    for (int k = 0; k < 7; k++) begin
      if (nc_rem < nc_thr) begin
        nc_thr = nc_thr >> 1;
        nc_nb  = nc_nb - 4'd1;
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // decoding table: spread positions, then the positions of each value in ascending order
  logic [3:0]    symt_q [Size];
  logic [LW-1:0] plist_q [Size];
  logic [6:0]  seen_q [12];
  logic [6:0]  cum [12];
  logic [LW-1:0] pos_q, u_q;
  logic [3:0]  sv_q;
  logic [6:0]  si_q;
  always_comb begin
    cum[0] = '0;
    for (int v = 1; v < 12; v++) cum[v] = cum[v-1] + norm_q[v-1];
  end

  // one encoder step: the state of weight w_i towards decoder state t
  logic [LW-1:0] sa_q, sb_q;
  logic [8:0]    i_q;
  logic [LW-1:0] st_new;
  logic [LW-1:0] st_bits;
  logic [3:0] st_nb;
  always_comb begin
    logic [6:0] c, x, ns;
    logic [3:0] h, k;
    c = norm_q[w_i];
    x = 7'(sb_q) + 7'(Size);
    h = '0;
    for (int b = 0; b < 7; b++) if (c[b]) h = 4'(b);
    k = 4'(Log) - h;
    st_nb   = ((x >> k) >= c) ? k : k - 4'd1;
    ns      = x >> st_nb;
    st_new  = plist_q[LW'(cum[w_i] + ns - c)];
    st_bits = LW'(x & ((7'd1 << st_nb) - 7'd1));
  end

  assign w_addr_o = i_q[7:0];

  always_comb begin
    add      = 1'b0;
    add_bits = '0;
    add_n    = '0;
    unique case (st_q)
      FNc: if (can_add) begin
        add = 1'b1;
        if (nb_q == '0) begin               // first: accuracy log - 5 in 4 bits
          add_bits = 16'(Log - 5);
          add_n    = 5'd4;
        end else begin
          add_bits = nc_bits;
          add_n    = nc_n;
        end
      end
      FEnc: if (can_add) begin
        add      = 1'b1;
        add_bits = 16'(st_bits);
        add_n    = 5'(st_nb);
      end
      FEnd: if (can_add) begin
        add      = 1'b1;
        add_bits = 16'(sb_q) | (16'(sa_q) << Log);
        add_n    = 5'(2 * Log);
      end
      FClose: if (can_add) begin
        add      = 1'b1;
        add_bits = 16'd1;
        add_n    = 5'd1;
      end
      default: ;
    endcase
  end

  assign done_o = (st_q == FDone);
  assign ok_o   = (st_q == FDone) && ndist >= 4'd2 && bi_q <= 8'd127;
  assign len_o  = bi_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q    <= FIdle;
      acc_q   <= '0;
      nacc_q  <= '0;
      bi_q    <= '0;
      left_q  <= '0;
      sym_q   <= '0;
      rem_q   <= '0;
      thr_q   <= '0;
      nb_q    <= '0;
      prev0_q <= 1'b0;
      pos_q   <= '0;
      u_q     <= '0;
      sv_q    <= '0;
      si_q    <= '0;
      sa_q    <= '0;
      sb_q    <= '0;
      i_q     <= '0;
    end else begin
      // accumulator: drain one byte, then append this cycle's bits
      begin
        logic [31:0] a;
        logic [5:0]  na;
        a  = acc_q;
        na = nacc_q;
        if (drain) begin
          a  = a >> 8;
          na = (na >= 6'd8) ? na - 6'd8 : '0;
          if (!bi_q[7]) bi_q <= bi_q + 8'd1;
        end
        if (add) begin
          a  = a | (32'(add_bits) << na);
          na = na + 6'(add_n);
        end
        acc_q  <= a;
        nacc_q <= na;
      end
      if (start_i) begin
        acc_q  <= '0;
        nacc_q <= '0;
        bi_q   <= '0;
        left_q <= 7'(Size) - 7'(ndist);
        st_q   <= (ndist < 4'd2) ? FDone : FNorm;
      end else begin
        unique case (st_q)
          FNorm: begin
            if (left_q == '0) begin
              sym_q   <= '0;
              rem_q   <= 8'(Size + 1);
              thr_q   <= 8'(Size);
              nb_q    <= '0;              // 0: the accuracy-log field comes first
              prev0_q <= 1'b0;
              st_q    <= FNc;
            end else begin
              left_q <= left_q - 7'd1;
            end
          end
          FNc: if (can_add) begin
            if (nb_q == '0) begin
              nb_q <= 4'(Log + 1);
            end else begin
              rem_q   <= nc_rem;
              thr_q   <= nc_thr;
              nb_q    <= nc_nb;
              prev0_q <= norm_q[nc_sym] == '0;
              sym_q   <= nc_sym + 4'd1;
              if (nc_sym == maxv || nc_rem <= 8'd1) st_q <= FNcFlush;
            end
          end
          FNcFlush: if (nacc_q <= 6'd8) begin
            pos_q <= '0;
            sv_q  <= '0;
            si_q  <= '0;
            st_q  <= FSpread;
          end
          FSpread: begin
            if (si_q < norm_q[sv_q]) begin
              pos_q <= LW'((32'(pos_q) + Step) & (Size - 1));
              si_q  <= si_q + 7'd1;
            end else if (sv_q == maxv) begin
              u_q  <= '0;
              st_q <= FList;
            end else begin
              sv_q <= sv_q + 4'd1;
              si_q <= '0;
            end
          end
          FList: begin
            u_q <= u_q + 1'b1;
            if (32'(u_q) == Size - 1) begin
              i_q  <= nw_i - 9'd1;
              st_q <= FEnc0;
            end
          end
          FEnc0: begin
            sb_q <= plist_q[LW'(cum[w_i])];
            i_q  <= i_q - 9'd1;
            st_q <= FEnc1;
          end
          FEnc1: begin
            sa_q <= plist_q[LW'(cum[w_i])];
            i_q  <= i_q - 9'd1;
            st_q <= FEnc;
          end
          FEnc: if (can_add) begin
            sb_q <= sa_q;
            sa_q <= st_new;
            if (i_q == '0) st_q <= FEnd;
            else i_q <= i_q - 9'd1;
          end
          FEnd: if (can_add) st_q <= FClose;
          FClose: if (can_add) st_q <= FFlush;
          FFlush: if (nacc_q <= 6'd8) st_q <= FDone;
          default: ;
        endcase
      end
    end
  end

  // normalised counts and gains, decoding table (no reset: written before use)
  always_ff @(posedge clk_i) begin
    if (start_i) begin
      for (int v = 0; v < 12; v++) begin
        norm_q[v] <= {6'd0, pres[v]};
        g_q[v]    <= {1'b0, cnt[v], 32'd0};     // count x F(1) = count x 2^32
        seen_q[v] <= '0;
      end
    end else if (st_q == FNorm && left_q != '0) begin
      norm_q[best] <= norm_q[best] + 7'd1;
      g_q[best]    <= 41'(cnt[best]) * 41'(fgain(6'(norm_q[best] + 7'd1)));
    end
    if (st_q == FSpread && si_q < norm_q[sv_q]) symt_q[pos_q] <= sv_q;
    if (st_q == FList) begin
      plist_q[LW'(cum[symt_q[u_q]] + seen_q[symt_q[u_q]])] <= u_q;
      seen_q[symt_q[u_q]] <= seen_q[symt_q[u_q]] + 7'd1;
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT_INIT(params_a, Log == 5 || Log == 6)
  `NDP_ASSERT(nw_legal_a, st_q == FIdle || st_q == FDone || (nw_i >= 9'd3 && nw_i <= 9'd255))
  `NDP_ASSERT(acc_fits_a, 32'(nacc_q) <= 24)
  `NDP_ASSERT(no_long_zero_run_a, !(st_q == FNc && prev0_q) || nc_z < 4'd12)
  logic [6:0] w_norm;
  assign w_norm = norm_q[w_i];
  `NDP_ASSERT(weight_present_a, !(st_q == FEnc && can_add) || w_norm != '0)
endmodule
