// zstd_enc_emit: writes one block of the ZSTD encoder's output (with the frame header in front when
// the block is a frame's first): decides the block's final kind and streams its bytes out.
//
/// Kinds (zstd_hw_model.h): RLE (every byte equal); Huffman (the spec 4.3 literals-only block:
/// literals header, tree description, jump table, the 1 or 4 streams, Number_of_Sequences = 0) when
/// the tree exists, a single stream fits 1023 bytes and the block is not larger than its content;
/// sequences (raw literals header, the literal runs read from the input ring, sequences header,
/// predefined modes, the FSE bitstream) when smaller than the content; otherwise Raw_Block (the
/// content from the input ring). Phases push into one output byte queue: the header bytes (<= 17)
/// at once, then copies of up to 32 bytes per cycle from the tree buffer (8), a region RAM, the ring
/// or, for literal runs, the ring at the positions the sequence RAM gives (the next entry is read
/// while a run is copied). Every read has one cycle of latency; one read is in flight at most and a
/// read is issued only when the queue has room for it. Registers: phase, counters, the in-flight
/// read, the current literal run, the output byte queue.
///
/// A sequences block whose literals have a Huffman tree (tree_ok_i: zstd_encoder with HufLits) takes
/// the Huffman literals section (header, tree, jump table, the 1 or 4 streams of the literals) when
/// it is smaller than the raw one, as huffman_literals_section() does; its FSE bitstream then
/// starts at word fs_i[0] of region 0 and goes on at word fs_i[k] of region k (behind the streams).
`include "ndp_assert.svh"

module zstd_enc_emit #(
  parameter int unsigned RegWords = 706,
  localparam int unsigned RWW = $clog2(RegWords)
) (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            start_i,
  input  logic [1:0]      kind_i,       // requested: 0 raw, 1 RLE, 2 sequences, 3 Huffman
  input  logic            first_i,      // frame header in front
  input  logic            last_i,       // Last_Block
  input  logic [31:0]     total_i,      // frame content size (first_i)
  input  logic [16:0]     n_i,          // block content bytes, 1..65536
  input  logic [15:0]     base_i,       // ring address of the block's byte 0
  input  logic [7:0]      v0_i,         // the byte of an RLE block
  // Huffman
  input  logic            tree_ok_i,
  input  logic [7:0]      tlen_i,
  input  logic [4*16-1:0] ssize_i,      // stream k bytes at [16k +: 16]
  // sequences
  input  logic [16:0]     nlit_i,
  input  logic [14:0]     nseq_i,
  input  logic [16:0]     sbytes_i,     // FSE bitstream bytes (regions 0.., from fs_i)
  input  logic [4*RWW-1:0] fs_i,        // first word of the FSE bitstream in each region
  // read ports (data the cycle after the address)
  output logic [3:0]      tree_addr_o,  // 8-byte words
  input  logic [63:0]     tree_data_i,
  output logic [1:0]      reg_sel_o,
  output logic [RWW-1:0]  reg_addr_o,
  input  logic [255:0]    reg_data_i,
  output logic [15:0]     ring_pos_o,
  input  logic [255:0]    ring_data_i,
  output logic [14:0]     seq_addr_o,
  input  logic [16+17-1:0] seq_data_i,  // {lit_start[15:0], ll[16:0]} of entry seq_addr_o (read every cycle)
  // output
  output logic            out_valid_o,
  input  logic            out_ready_i,
  output logic [255:0]    out_data_o,
  output logic [5:0]      out_cnt_o,
  output logic            out_last_o,
  output logic            done_o,       // the block's last beat is taken this cycle
  output logic [17:0]     size_o,       // content bytes of the block kind_i gives with these inputs
                                        // (after the fallback to RAW), before start_i
  output logic [1:0]      kind_o,       // the kind written (valid from the cycle after start_i)
  output logic [17:0]     bytes_o       // bytes written for the block (frame header included)
);
  typedef enum logic [3:0] {EIdle, EHdr, ETree, EJump, EReg, ELit, ESeqHdr, ERaw, ETail,
                            EEnd} ph_e;
  ph_e ph_q;

  localparam logic [1:0] KRaw = 2'd0, KRle = 2'd1, KSeq = 2'd2, KHuf = 2'd3;

  // ---------------------------------------------------------------------------------------------
  // Sizes and the kind decision
  logic [17:0] hcontent, scontent, lsize;
  logic [16:0] hn;                      // bytes the Huffman streams code
  logic [2:0]  lh_n, slh_n, sh_n;
  logic [3:0]  fh_n;
  logic        four, lits_ok, huf_ok, hl, seq_ok;
  logic [1:0]  kind;
  always_comb begin
    hn       = (kind_i == KSeq) ? nlit_i : n_i;
    four     = hn >= 17'd1024;
    hcontent = 18'(tlen_i) + (four ? 18'd6 : 18'd0) + 18'(ssize_i[15:0]) + 18'(ssize_i[31:16]) +
               18'(ssize_i[47:32]) + 18'(ssize_i[63:48]);
    lh_n     = !four ? 3'd3 : ((hn <= 17'd16383 && hcontent <= 18'd16383) ? 3'd4 : 3'd5);
    lits_ok  = tree_ok_i && (four || hcontent <= 18'd1023);
    huf_ok   = lits_ok && (18'(lh_n) + hcontent + 18'd1 <= 18'(n_i));
    slh_n    = (nlit_i <= 17'd31) ? 3'd1 : ((nlit_i <= 17'd4095) ? 3'd2 : 3'd3);
    hl       = lits_ok && (18'(lh_n) + hcontent < 18'(slh_n) + 18'(nlit_i));
    lsize    = hl ? 18'(lh_n) + hcontent : 18'(slh_n) + 18'(nlit_i);
    sh_n     = (nseq_i < 15'd128) ? 3'd1 : ((nseq_i < 15'h7F00) ? 3'd2 : 3'd3);
    scontent = lsize + 18'(sh_n) + ((nseq_i != '0) ? 18'd1 + 18'(sbytes_i) : 18'd0);
    seq_ok   = scontent < 18'(n_i);
    fh_n     = !first_i ? 4'd0 : ((total_i <= 32'd255) ? 4'd6 : ((total_i <= 32'd65791) ? 4'd7 : 4'd9));
    unique case (kind_i)
      KRle:    kind = KRle;
      KHuf:    kind = huf_ok ? KHuf : KRaw;
      KSeq:    kind = seq_ok ? KSeq : KRaw;
      default: kind = KRaw;
    endcase
  end

  always_comb begin
    unique case (kind)
      KRle:    size_o = 18'd1;
      KHuf:    size_o = 18'(lh_n) + hcontent + 18'd1;
      KSeq:    size_o = scontent;
      default: size_o = 18'(n_i);
    endcase
  end

  // Compressed_Literals_Block header of hn literals
  logic [39:0] huf_lh;
  always_comb begin
    if (!four) huf_lh = 40'({hcontent[9:0], hn[9:0], 2'b00, 2'b10});
    else if (lh_n == 3'd4) huf_lh = 40'({hcontent[13:0], hn[13:0], 2'b10, 2'b10});
    else huf_lh = 40'({hcontent[17:0], 18'(hn), 2'b11, 2'b10});
  end

  // header bytes: frame header (<= 9), block header (3), literals section header (<= 5): <= 17
  logic [24*8-1:0] hdr;
  logic [4:0]      hdr_n;
  always_comb begin
    logic [71:0] fh;
    logic [23:0] bh;
    logic [39:0] lh;
    logic [2:0]  ln;
    logic [17:0] bsize;
    fh = '0;
    if (total_i <= 32'd255) fh = {24'd0, total_i[7:0], 8'h20, 32'hFD2FB528};
    else if (total_i <= 32'd65791) fh = {16'd0, 16'(total_i - 32'd256), 8'h60, 32'hFD2FB528};
    else fh = {total_i, 8'hA0, 32'hFD2FB528};
    lh = '0;
    ln = '0;
    bsize = 18'(n_i);
    unique case (kind_q)
      KHuf: begin
        ln    = lh_n;
        bsize = 18'(lh_n) + hcontent + 18'd1;
        lh    = huf_lh;
      end
      KSeq: begin
        ln    = hl_q ? lh_n : slh_n;
        bsize = scontent;
        if (hl_q) lh = huf_lh;
        else if (slh_n == 3'd1) lh = 40'({nlit_i[4:0], 1'b0, 2'b00});
        else if (slh_n == 3'd2) lh = 40'({nlit_i[11:0], 2'b01, 2'b00});
        else lh = 40'({3'b000, nlit_i[16:0], 2'b11, 2'b00});
      end
      KRle: begin
        ln = 3'd1;
        lh = 40'(v0_i);
      end
      default: ;
    endcase
    bh  = {3'b000, bsize, (kind_q == KRle) ? 2'b01 : ((kind_q == KRaw) ? 2'b00 : 2'b10), last_i};
    // fh (fh_n bytes), bh (3), lh (ln bytes)
    hdr   = (192'(fh) & ((192'd1 << {fh_n, 3'b000}) - 192'd1)) | (192'(bh) << {fh_n, 3'b000}) |
            (192'(lh) << {fh_n + 4'd3, 3'b000});
    hdr_n = 5'(fh_n) + 5'd3 + 5'(ln);
  end

  // ---------------------------------------------------------------------------------------------
  // Output byte queue
  localparam int unsigned QD = 128;
  logic [7:0]   qcnt;
  logic [255:0] qhead;
  logic [5:0]   push_n;
  logic [255:0] push_d;
  logic         pushed_q, out_hs, room;
  assign room       = 32'(qcnt) + 64 <= QD;
  // a full beat leaves while more bytes are queued behind it, or once the block is all queued (so
  // a beat never leaves without last that turns out to be the block's last)
  assign out_valid_o = qcnt > 8'd32 || (pushed_q && qcnt != '0);
  assign out_last_o = pushed_q && qcnt <= 8'd32;
  assign out_cnt_o  = (qcnt >= 8'd32) ? 6'd32 : 6'(qcnt);
  assign out_data_o = qhead;
  assign out_hs     = out_valid_o && out_ready_i;
  assign done_o     = out_hs && out_last_o;

  lz4_byteq #(.Depth(QD), .PushW(32), .PopW(32)) u_outq (
    .clk_i, .rst_ni,
    .flush_i    (1'b0),
    .push_cnt_i (push_n),
    .push_data_i(push_d),
    .pop_cnt_i  (out_hs ? out_cnt_o : 6'd0),
    .head_o     (qhead),
    .count_o    (qcnt)
  );

  // ---------------------------------------------------------------------------------------------
  // Phases
  logic [1:0]  kind_q;
  logic        hl_q;                    // sequences block with Huffman literals
  logic        lits_q;                  // EReg copies the literal streams (else the FSE bitstream)
  logic [17:0] left_q;                  // bytes of the current copy not yet read
  logic [15:0] pos_q;                   // ring position of the next read
  logic [3:0]  tw_q;                    // tree word
  logic [1:0]  sel_q;                   // region
  logic [RWW-1:0] ra_q;                 // region word
  logic [1:0]  k_q;                     // stream
  logic [14:0] e_q;                     // literal run entry
  logic        sv_q;                    // seq_data_i holds entry e_q
  logic [5:0]  fly_n_q;                 // bytes of the read in flight
  logic [1:0]  fly_src_q;               // 0 tree, 1 region, 2 ring
  logic [17:0] bytes_q;

  logic        rd;                      // issue a read this cycle
  logic [5:0]  rd_n;
  logic [1:0]  rd_src;
  logic [5:0]  chunk;
  assign chunk = (left_q < 18'd32) ? 6'(left_q) : 6'd32;

  always_comb begin
    push_n = '0;
    push_d = '0;
    if (fly_n_q != '0) begin
      push_n = fly_n_q;
      unique case (fly_src_q)
        2'd0:    push_d = 256'(tree_data_i);
        2'd1:    push_d = reg_data_i;
        default: push_d = ring_data_i;
      endcase
    end
    rd = 1'b0; rd_n = '0; rd_src = 2'd2;
    unique case (ph_q)
      EHdr: begin
        push_n = 6'(hdr_n);
        push_d = 256'(hdr);
      end
      ETree: if (room && left_q != '0) begin
        rd = 1'b1; rd_src = 2'd0; rd_n = (left_q < 18'd8) ? 6'(left_q) : 6'd8;
      end
      EJump: begin
        push_n = 6'd6;
        push_d = 256'({ssize_i[47:32], ssize_i[31:16], ssize_i[15:0]});
      end
      EReg: if (room && left_q != '0) begin
        rd = 1'b1; rd_src = 2'd1; rd_n = chunk;
      end
      ELit, ERaw: if (room && left_q != '0) begin
        rd = 1'b1; rd_src = 2'd2; rd_n = chunk;
      end
      ESeqHdr: begin
        // Number_of_Sequences, then the modes byte (predefined) when there are sequences
        push_n = 6'(sh_n) + ((nseq_i != '0) ? 6'd1 : 6'd0);
        if (sh_n == 3'd1) push_d = 256'({8'h00, 1'b0, nseq_i[6:0]});
        else if (sh_n == 3'd2) push_d = 256'({8'h00, nseq_i[7:0], 1'b1, nseq_i[14:8]});
        else push_d = 256'({8'h00, 16'(nseq_i - 15'h7F00), 8'hFF});
      end
      ETail: begin
        push_n = 6'd1;
        push_d = '0;
      end
      default: ;
    endcase
  end

  assign tree_addr_o = tw_q;
  assign reg_sel_o   = sel_q;
  assign reg_addr_o  = ra_q;
  assign ring_pos_o  = pos_q;
  assign seq_addr_o  = e_q;
  assign kind_o      = kind_q;
  assign bytes_o     = bytes_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ph_q      <= EIdle;
      kind_q    <= KRaw;
      left_q    <= '0;
      pos_q     <= '0;
      tw_q      <= '0;
      sel_q     <= '0;
      ra_q      <= '0;
      k_q       <= '0;
      e_q       <= '0;
      sv_q      <= 1'b0;
      fly_n_q   <= '0;
      fly_src_q <= '0;
      pushed_q  <= 1'b0;
      bytes_q   <= '0;
      hl_q      <= 1'b0;
      lits_q    <= 1'b0;
    end else begin
      fly_n_q   <= rd ? rd_n : 6'd0;
      sv_q      <= 1'b1;
      fly_src_q <= rd_src;
      bytes_q   <= bytes_q + 18'(push_n);
      if (rd) begin
        left_q <= left_q - 18'(rd_n);
        unique case (rd_src)
          2'd0: tw_q <= tw_q + 4'd1;
          2'd1: begin
            if (32'(ra_q) == RegWords - 1) begin
              ra_q  <= fs_i[32'(2'(sel_q + 2'd1))*RWW +: RWW];
              sel_q <= sel_q + 2'd1;
            end else begin
              ra_q <= ra_q + 1'b1;
            end
          end
          default: pos_q <= pos_q + 16'(rd_n);
        endcase
      end
      if (done_o) pushed_q <= 1'b0;
      if (start_i) begin
        ph_q    <= EHdr;
        kind_q  <= kind;
        hl_q    <= kind == KSeq && hl;
        bytes_q <= '0;
      end else begin
        unique case (ph_q)
          EHdr: begin
            tw_q  <= '0;
            sel_q <= '0;
            ra_q  <= '0;
            k_q   <= '0;
            e_q   <= '0;
            sv_q  <= 1'b0;
            left_q <= '0;
            lits_q <= kind_q == KHuf || hl_q;
            unique case (kind_q)
              KHuf: begin
                ph_q   <= ETree;
                left_q <= 18'(tlen_i);
              end
              KSeq: begin
                ph_q   <= hl_q ? ETree : ELit;
                left_q <= hl_q ? 18'(tlen_i) : '0;
              end
              KRaw: begin
                ph_q   <= ERaw;
                pos_q  <= base_i;
                left_q <= 18'(n_i);
              end
              default: ph_q <= EEnd;
            endcase
          end
          ETree: if (left_q == '0 && !(rd)) begin
            ph_q   <= four ? EJump : EReg;
            left_q <= 18'(ssize_i[15:0]);
          end
          EJump: ph_q <= EReg;
          EReg: if (left_q == '0) begin
            // the next literal stream, the end of the literals (Huffman block: the zero sequences
            // byte; sequences block: its sequences section) or the end of the FSE bitstream
            if (lits_q && four && k_q != 2'd3) begin
              k_q    <= k_q + 2'd1;
              sel_q  <= k_q + 2'd1;
              ra_q   <= '0;
              left_q <= 18'(ssize_i[(32'(k_q) + 1)*16 +: 16]);
            end else if (lits_q) begin
              ph_q <= (kind_q == KHuf) ? ETail : ESeqHdr;
            end else begin
              ph_q <= EEnd;
            end
          end
          ELit: begin
            // runs 0..nseq (the last one is the block's final literals); entry e_q is read every
            // cycle, so it is on seq_data_i from the cycle after e_q changes
            if (left_q == '0) begin
              if (32'(e_q) > 32'(nseq_i)) begin
                ph_q <= ESeqHdr;
              end else if (sv_q) begin
                pos_q  <= seq_data_i[17 +: 16];
                left_q <= 18'(seq_data_i[16:0]);
                e_q    <= e_q + 15'd1;
                sv_q   <= 1'b0;
              end
            end
          end
          ESeqHdr: begin
            ph_q   <= (nseq_i != '0) ? EReg : EEnd;
            lits_q <= 1'b0;
            sel_q  <= '0;
            ra_q   <= fs_i[0 +: RWW];
            left_q <= 18'(sbytes_i);
          end
          ERaw: if (left_q == '0) ph_q <= EEnd;
          ETail: ph_q <= EEnd;
          EEnd: if (fly_n_q == '0 && !rd) begin
            pushed_q <= 1'b1;
            ph_q     <= EIdle;
          end
          default: ;
        endcase
      end
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(push_fits_a, 32'(qcnt) + 32'(push_n) <= QD)
  `NDP_ASSERT(start_idle_a, !start_i || (ph_q == EIdle && !pushed_q))
  `NDP_ASSERT(n_legal_a, !start_i || (n_i != '0 && n_i <= 17'd65536))
  `NDP_ASSERT_STREAM(out_stream_a, out_valid_o, out_ready_i, {out_data_o, out_cnt_o, out_last_o})
endmodule
