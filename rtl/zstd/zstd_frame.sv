// zstd_frame: frame-level control of the Zstandard decoder (RFC 8878 section 3.1): input byte
// queue, frame header, skippable frames, block headers, raw/RLE blocks, loading compressed blocks
// into the block RAM, sequencing zstd_lits / zstd_seq / zstd_exec, the XXH64 content checksum,
// the history limit, error drain and the final status row of a job.
//
/// A job is the input bytes up to in_last_i: one or more frames. The history limit is enforced
/// per match by zstd_seq (ErrHistory), so any declared window is accepted up to 2^27.
/// Blocks run one after the other (load, literals, sequences); before a block's commands a source
/// command (cmd_src_o) tells the executor where that block's literals are, so the executor copies
/// block N while block N+1 is loaded and its literals decoded (zstd_lits: literal-RAM halves).
`include "ndp_assert.svh"

module zstd_frame #(
  parameter int unsigned AddrW     = 17,
  parameter int unsigned LitWAW    = 14
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               in_valid_i,
  output logic               in_ready_o,
  input  logic [63:0]        in_data_i,
  input  logic [3:0]         in_cnt_i,
  input  logic               in_last_i,
  input  logic [31:0]        out_cap_i,       // output buffer bytes for the job
  // status row
  output logic               stat_valid_o,
  input  logic               stat_ready_i,
  output zstd_pkg::err_e     stat_code_o,
  output logic [15:0]        stat_frames_o,   // frames (skippable ones included) the job held
  input  logic               out_empty_i,     // executor output FIFO empty
  // block RAM write
  output logic               bw_we_o,
  output logic [AddrW-4:0]   bw_addr_o,
  output logic [63:0]        bw_data_o,
  // literal RAM write (raw blocks)
  output logic               lw_we_o,
  output logic [LitWAW-1:0]  lw_addr_o,
  output logic [63:0]        lw_data_o,
  // per-frame resets
  output logic               frame_start_o,
  // literals unit
  output logic               lits_start_o,
  output logic [AddrW:0]     blk_size_o,
  input  logic               lits_done_i,
  input  logic               lits_err_i,
  input  zstd_pkg::err_e     lits_code_i,
  input  logic               lits_rle_i,
  input  logic [7:0]         lits_rle_byte_i,
  input  logic [4*18-1:0]    lits_len_i,
  input  logic               lits_half_mode_i,
  input  logic               lits_half_i,
  // sequences unit
  output logic               seq_start_o,
  output logic [31:0]        fpos_o,
  output logic [31:0]        room_o,
  output logic [17:0]        bmax_o,          // Block_Maximum_Size of the current frame
  input  logic               seq_done_i,
  input  logic               seq_err_i,
  input  zstd_pkg::err_e     seq_code_i,
  input  logic [17:0]        seq_blk_out_i,
  // executor: source command (cmd_src_o) or literals-only command (cmd_ll_o)
  output logic               cmd_valid_o,
  output logic               cmd_src_o,
  output logic               lit_rle_o,
  output logic [7:0]         lit_rle_byte_o,
  output logic [4*18-1:0]    lit_len_o,
  output logic               lit_half_mode_o,
  output logic               lit_half_o,
  input  logic               cmd_ready_i,
  output logic [17:0]        cmd_ll_o,
  input  logic               exec_idle_i,
  // checksum
  output logic               xxh_clear_o,
  output logic               xxh_fin_o,
  input  logic               xxh_done_i,
  input  logic [63:0]        xxh_hash_i
);
  typedef enum logic [4:0] {FMagic, FHdr, FWin, FDid, FFcs, FCheck, FBhdr, FRaw, FRle, FLoad,
                            FLits, FSeq, FCmd, FWaitExec, FCk, FEnd, FSkipSz, FSkip, FErr, FDrain,
                            FStat, FRawW, FSrc} state_e;
  state_e state_q;

  // ---- input byte queue -------------------------------------------------------------------------
  logic [63:0] iq_head;
  logic [4:0]  iq_count;
  logic [3:0]  iq_pop;
  logic        last_q;
  logic        in_hs, in_end;
  assign in_ready_o = !last_q && iq_count <= 5'd16;
  assign in_hs      = in_valid_i && in_ready_o;
  assign in_end     = last_q && iq_count == '0;

  zstd_byteq #(.Bytes(24)) u_inq (
    .clk_i, .rst_ni,
    .clear_i    (1'b0),
    .push_i     (in_hs),
    .push_data_i(in_data_i),
    .push_cnt_i (in_cnt_i),
    .pop_cnt_i  (iq_pop),
    .head_o     (iq_head),
    .count_o    (iq_count)
  );

  // ---- frame state --------------------------------------------------------------------------
  logic [7:0]      fhd_q;
  logic            unused_bits;   // descriptor bits 4..2 are read from iq_head when parsed; XXH64 low half
  assign unused_bits = ^{fhd_q[4:2], xxh_hash_i[63:32]};
  logic [3:0]      nb_q;            // bytes of the field being read
  logic            fcs_known_q, ck_q, last_blk_q;
  logic [63:0]     fcs_q;
  logic [31:0]     fpos_q, total_q, nframes_q;
  logic [17:0]     bsize_q;
  logic [7:0]      wd_q;            // Window_Descriptor
  logic [17:0]     bmax_q;          // Block_Maximum_Size: min(Window_Size, 128 KiB)
  logic [31:0]     rem_q;
  logic [LitWAW-1:0] widx_q;
  zstd_pkg::err_e  code_q;
  logic            rle_q;
  logic [7:0]      rleb_q;
  logic [4*18-1:0] len_q;
  logic [17:0]     cll_q;
  logic            lits_busy_q, seq_busy_q, src_seq_q, hmode_q, half_q;

  // bytes needed by the current state, and whether they are there
  logic [3:0] need;
  logic       have, trunc;
  logic [3:0] chunk;               // min(8, rem_q)
  assign chunk = (rem_q >= 32'd8) ? 4'd8 : 4'(rem_q);
  always_comb begin
    unique case (state_q)
      FMagic, FSkipSz, FCk: need = 4'd4;
      FHdr, FWin, FRle:     need = 4'd1;
      FDid, FFcs:           need = nb_q;
      FBhdr:                need = 4'd3;
      FRaw, FLoad, FSkip:   need = chunk;
      default:              need = 4'd0;
    endcase
  end
  assign have  = (iq_count >= 5'(need));
  assign trunc = last_q && !have;

  // header field values
  logic [31:0] magic;
  logic [23:0] bh;
  logic [63:0] fieldv;
  assign magic = iq_head[31:0];
  assign bh    = iq_head[23:0];
  always_comb begin
    fieldv = '0;
    for (int k = 0; k < 8; k++) if (4'(k) < nb_q) fieldv[k*8 +: 8] = iq_head[k*8 +: 8];
  end

  // remaining output room for a block: job capacity and declared content size
  logic [31:0] room;
  always_comb begin
    room = out_cap_i - total_q;
    if (fcs_known_q && (fcs_q - 64'(fpos_q)) < 64'(room)) room = 32'(fcs_q - 64'(fpos_q));
  end
  assign room_o = room;
  assign bmax_o = bmax_q;

  // Block_Maximum_Size (RFC 8878 section 3.1.1.2): min(Window_Size, 128 KiB), Window_Size from the
  // Window_Descriptor (2^(10+Exponent) + Mantissa/8 of it) or, single segment, the content size.
  logic [17:0] bmax_wd, bmax_fcs;
  always_comb begin
    if (wd_q[7:3] >= 5'd7) bmax_wd = 18'd131072;
    else bmax_wd = (18'd1 << (5'd10 + wd_q[7:3])) + 18'((18'd1 << (5'd7 + wd_q[7:3])) * 18'(wd_q[2:0]));
    bmax_fcs = (fcs_q > 64'd131072) ? 18'd131072 : 18'(fcs_q);
  end
  assign fpos_o = fpos_q;

  always_comb begin
    iq_pop = '0;
    unique case (state_q)
      FMagic:  if (have) iq_pop = 4'd4;
      FSkipSz: if (have) iq_pop = 4'd4;
      FHdr:    if (have && (!iq_head[2] || (exec_idle_i && out_empty_i))) iq_pop = 4'd1;
      FWin:    if (have) iq_pop = 4'd1;
      FRle:    if (have && exec_idle_i) iq_pop = 4'd1;
      FDid, FFcs: if (have) iq_pop = nb_q;
      FBhdr:   if (have) iq_pop = 4'd3;
      FRaw, FLoad, FSkip: if (have && rem_q != '0) iq_pop = chunk;
      FCk:     if (have && xxh_done_i && xxh_fin_o) iq_pop = 4'd4;
      FDrain:  iq_pop = (iq_count >= 5'd8) ? 4'd8 : 4'(iq_count);
      default: ;
    endcase
  end

  assign bw_we_o   = (state_q == FLoad) && have && rem_q != '0;
  assign bw_addr_o = widx_q[AddrW-4:0];
  assign bw_data_o = iq_head;
  assign lw_we_o   = (state_q == FRaw) && have && rem_q != '0;
  assign lw_addr_o = widx_q;
  assign lw_data_o = iq_head;

  assign lits_start_o = (state_q == FLits) && !lits_busy_q;
  assign seq_start_o  = (state_q == FSeq) && !seq_busy_q;
  assign blk_size_o   = (AddrW+1)'(bsize_q);
  assign cmd_valid_o  = (state_q == FCmd) || (state_q == FSrc);
  assign cmd_src_o    = (state_q == FSrc);
  assign cmd_ll_o     = cll_q;
  assign lit_rle_o      = rle_q;
  assign lit_rle_byte_o = rleb_q;
  assign lit_len_o      = len_q;
  assign lit_half_mode_o = hmode_q;
  assign lit_half_o     = half_q;
  assign xxh_fin_o    = (state_q == FCk) && exec_idle_i && out_empty_i;
  assign stat_valid_o = (state_q == FStat) && exec_idle_i && out_empty_i;
  assign stat_code_o  = code_q;
  assign stat_frames_o = (nframes_q > 32'hFFFF) ? 16'hFFFF : nframes_q[15:0];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= FMagic;
      last_q <= 1'b0; fhd_q <= '0; nb_q <= '0; fcs_known_q <= 1'b0; ck_q <= 1'b0;
      last_blk_q <= 1'b0; fcs_q <= '0; fpos_q <= '0; total_q <= '0; nframes_q <= '0;
      bsize_q <= '0; wd_q <= '0; bmax_q <= '0; rem_q <= '0; widx_q <= '0; code_q <= zstd_pkg::ErrNone; rle_q <= 1'b0;
      rleb_q <= '0; len_q <= '0; cll_q <= '0; lits_busy_q <= 1'b0; seq_busy_q <= 1'b0;
      src_seq_q <= 1'b0; hmode_q <= 1'b0; half_q <= 1'b0;
      frame_start_o <= 1'b0; xxh_clear_o <= 1'b0;
    end else begin
      frame_start_o <= 1'b0;
      xxh_clear_o   <= 1'b0;
      if (in_hs && in_last_i) last_q <= 1'b1;
      unique case (state_q)
        FMagic: begin
          if (in_end) begin
            code_q  <= (nframes_q == '0) ? zstd_pkg::ErrTruncated : zstd_pkg::ErrNone;
            state_q <= FStat;
          end else if (trunc) begin
            code_q  <= zstd_pkg::ErrTruncated;
            state_q <= FErr;
          end else if (have) begin
            if (magic == 32'hFD2FB528) begin
              frame_start_o <= 1'b1;
              fpos_q        <= '0;
              state_q       <= FHdr;
            end else if (magic[31:4] == 28'h184D2A5) state_q <= FSkipSz;
            else begin
              code_q  <= zstd_pkg::ErrMagic;
              state_q <= FErr;
            end
          end
        end
        FSkipSz: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
                 else if (have) begin rem_q <= magic; state_q <= FSkip; end
        FSkip: if (rem_q == '0) begin
                 nframes_q <= nframes_q + 32'd1;
                 state_q   <= FMagic;
               end else if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
               else if (have) rem_q <= rem_q - 32'(chunk);
        FHdr: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
              else if (have && (!iq_head[2] || (exec_idle_i && out_empty_i))) begin
                xxh_clear_o <= iq_head[2];
                fhd_q       <= iq_head[7:0];
                ck_q        <= iq_head[2];
                fcs_known_q <= (iq_head[7:6] != 2'd0) || iq_head[5];
                if (iq_head[3]) begin
                  code_q  <= zstd_pkg::ErrFrameHdr;
                  state_q <= FErr;
                end else if (!iq_head[5]) state_q <= FWin;
                else begin
                  nb_q    <= (iq_head[1:0] == 2'd3) ? 4'd4 : 4'(iq_head[1:0]);
                  state_q <= FDid;
                end
              end
        FWin: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
              else if (have) begin
                nb_q     <= (fhd_q[1:0] == 2'd3) ? 4'd4 : 4'(fhd_q[1:0]);
                wd_q     <= iq_head[7:0];
                state_q  <= FDid;
                // windows above 2^27 (libzstd's default limit): refused as a frame parameter
                if (iq_head[7:3] > 5'd17 || (iq_head[7:3] == 5'd17 && iq_head[2:0] != 3'd0)) begin
                  code_q  <= zstd_pkg::ErrFrameHdr;
                  state_q <= FErr;
                end
              end
        FDid: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
              else if (have) begin
                if (fieldv != '0) begin
                  code_q  <= zstd_pkg::ErrFrameHdr;  // dictionaries are not supported
                  state_q <= FErr;
                end else begin
                  unique case (fhd_q[7:6])
                    2'd0: nb_q <= fhd_q[5] ? 4'd1 : 4'd0;
                    2'd1: nb_q <= 4'd2;
                    2'd2: nb_q <= 4'd4;
                    default: nb_q <= 4'd8;
                  endcase
                  state_q <= FFcs;
                end
              end
        FFcs: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
              else if (have) begin
                fcs_q   <= (nb_q == 4'd2) ? fieldv + 64'd256 : fieldv;
                state_q <= FCheck;
              end
        // The history limit is enforced per match (zstd_seq: an offset beyond HistBytes is
        // ErrHistory), so a frame with a large window whose matches stay within HistBytes decodes.
        FCheck: begin
                  bmax_q <= fhd_q[5] ? bmax_fcs : bmax_wd;
                  if (fhd_q[5] && fcs_q > 64'h800_0001) begin
                    code_q  <= zstd_pkg::ErrFrameHdr;   // single segment: the window is the content size
                    state_q <= FErr;
                  end else state_q <= FBhdr;
                end
        FBhdr: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
               else if (have) begin
                 last_blk_q <= bh[0];
                 bsize_q    <= 18'(bh[23:3]);
                 rem_q      <= 32'(bh[23:3]);
                 widx_q     <= '0;
                 if (bh[2:1] == 2'd3) begin
                   code_q  <= zstd_pkg::ErrBlockType;
                   state_q <= FErr;
                 end else if (bh[23:3] > 21'(bmax_q)) begin
                   // Block_Size above Block_Maximum_Size: raw and RLE blocks decode to Block_Size
                   // bytes, a compressed block's content is limited too (RFC 8878 3.1.1.2)
                   code_q  <= zstd_pkg::ErrBlockSize;
                   state_q <= FErr;
                 end else if (bh[2:1] != 2'd2 && 32'(bh[23:3]) > room) begin
                   code_q  <= zstd_pkg::ErrOutput;
                   state_q <= FErr;
                 end else begin
                   unique case (bh[2:1])
                     2'd0: state_q <= FRawW;
                     2'd1: state_q <= FRle;
                     default: state_q <= FLoad;
                   endcase
                 end
               end
        FRawW: if (exec_idle_i) state_q <= FRaw;
        FRaw: if (rem_q == '0) begin
                rle_q     <= 1'b0;
                len_q     <= {54'd0, bsize_q};
                hmode_q   <= 1'b0;
                cll_q     <= bsize_q;
                src_seq_q <= 1'b0;
                fpos_q    <= fpos_q + 32'(bsize_q);
                total_q   <= total_q + 32'(bsize_q);
                state_q   <= FSrc;
              end else if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
              else if (have) begin
                rem_q  <= rem_q - 32'(chunk);
                widx_q <= widx_q + 1'b1;
              end
        FRle: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
              else if (have && exec_idle_i) begin
                rle_q     <= 1'b1;
                rleb_q    <= iq_head[7:0];
                len_q     <= '0;
                hmode_q   <= 1'b0;
                cll_q     <= bsize_q;
                src_seq_q <= 1'b0;
                fpos_q    <= fpos_q + 32'(bsize_q);
                total_q   <= total_q + 32'(bsize_q);
                state_q   <= FSrc;
              end
        FLoad: if (rem_q == '0) state_q <= FLits;
               else if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
               else if (have) begin
                 rem_q  <= rem_q - 32'(chunk);
                 widx_q <= widx_q + 1'b1;
               end
        FLits: begin
          if (!lits_busy_q) lits_busy_q <= 1'b1;
          else if (lits_done_i) begin
            lits_busy_q <= 1'b0;
            if (lits_err_i) begin
              code_q  <= lits_code_i;
              state_q <= FErr;
            end else begin
              rle_q     <= lits_rle_i;
              rleb_q    <= lits_rle_byte_i;
              len_q     <= lits_len_i;
              hmode_q   <= lits_half_mode_i;
              half_q    <= lits_half_i;
              src_seq_q <= 1'b1;
              state_q   <= FSrc;
            end
          end
        end
        FSeq: begin
          if (!seq_busy_q) seq_busy_q <= 1'b1;
          else if (seq_done_i) begin
            seq_busy_q <= 1'b0;
            if (seq_err_i) begin
              code_q  <= seq_code_i;
              state_q <= FErr;
            end else begin
              fpos_q  <= fpos_q + 32'(seq_blk_out_i);
              total_q <= total_q + 32'(seq_blk_out_i);
              state_q <= last_blk_q ? (ck_q ? FCk : FEnd) : FBhdr;
            end
          end
        end
        FSrc: if (cmd_ready_i) state_q <= src_seq_q ? FSeq : FCmd;
        FCmd: if (cmd_ready_i) state_q <= last_blk_q ? (ck_q ? FCk : FEnd) : FBhdr;
        FWaitExec: if (exec_idle_i) state_q <= last_blk_q ? (ck_q ? FCk : FEnd) : FBhdr;
        FCk: if (trunc) begin code_q <= zstd_pkg::ErrTruncated; state_q <= FErr; end
             else if (have && xxh_done_i && xxh_fin_o) begin
               if (magic != xxh_hash_i[31:0]) begin
                 code_q  <= zstd_pkg::ErrChecksum;
                 state_q <= FErr;
               end else state_q <= FEnd;
             end
        FEnd: begin
          if (fcs_known_q && fcs_q != 64'(fpos_q)) begin
            code_q  <= zstd_pkg::ErrContentSize;
            state_q <= FErr;
          end else begin
            nframes_q <= nframes_q + 32'd1;
            state_q   <= FMagic;
          end
        end
        FErr: state_q <= FDrain;
        FDrain: if (in_end && exec_idle_i) state_q <= FStat;
        FStat: if (stat_valid_o && stat_ready_i) begin
          last_q    <= 1'b0;
          nframes_q <= '0;
          total_q   <= '0;
          code_q    <= zstd_pkg::ErrNone;
          state_q   <= FMagic;
        end
        default: state_q <= FMagic;
      endcase
    end
  end

  `NDP_ASSERT(load_in_range_a, !bw_we_o || 32'(widx_q) < (32'd1 << (AddrW - 3)))
  `NDP_ASSERT(field_bytes_a, nb_q <= 4'd8)
  `NDP_ASSERT(one_unit_busy_a, !(lits_busy_q && seq_busy_q))
  `NDP_ASSERT(lits_busy_state_a, !lits_busy_q || state_q == FLits)
  `NDP_ASSERT(seq_busy_state_a, !seq_busy_q || state_q == FSeq)
  `NDP_ASSERT(no_input_after_last_a, !(last_q && in_ready_o))
  `NDP_ASSERT_STREAM(cmd_stable_a, cmd_valid_o, cmd_ready_i, {cmd_src_o, lit_rle_o, lit_rle_byte_o, lit_len_o,
                                                              lit_half_mode_o, lit_half_o, cmd_ll_o})

  // ---- bounded response (simulation and `make formal`, job zstd_frame) ---------------------------
  // Once the job's input has ended (in_end: in_last_i taken and every byte popped), the status row
  // is handed over within RespK cycles of the FSM's own: cycles in which it waits on another unit
  // (literals, sequences, command queue, executor, status sink) do not count. resp_w is the longest
  // own path left from each state after in_end (every state needing bytes ends as truncated), a
  // ranking function: each own cycle lowers it by at least 1, so resp_q + resp_w <= RespK holds
  // by induction in any environment.
`ifdef VERILATOR
  `define ZSTD_FRAME_RESP
`endif
`ifdef FORMAL
  `define ZSTD_FRAME_RESP
`endif
`ifdef ZSTD_FRAME_RESP
  localparam int unsigned RespK = 10;
  logic [3:0] resp_q, resp_w;
  logic       resp_stall;
  always_comb begin
    unique case (state_q)
      FStat:                                     resp_w = 4'd1;
      FDrain, FMagic:                            resp_w = 4'd2;
      FErr:                                      resp_w = 4'd3;
      FBhdr, FHdr, FWin, FSkipSz, FSkip, FRle, FCk, FEnd: resp_w = 4'd4;
      FCheck, FCmd, FWaitExec:                   resp_w = 4'd5;
      FFcs:                                      resp_w = 4'd6;
      FSeq:                                      resp_w = seq_busy_q ? 4'd5 : 4'd6;
      FDid, FSrc:                                resp_w = 4'd7;
      FRaw:                                      resp_w = 4'd8;
      FRawW:                                     resp_w = 4'd9;
      FLits:                                     resp_w = lits_busy_q ? 4'd8 : 4'd9;
      default:                                   resp_w = 4'd10;   // FLoad
    endcase
    resp_stall = (state_q == FLits && lits_busy_q && !lits_done_i) ||
                 (state_q == FSeq && seq_busy_q && !seq_done_i) ||
                 ((state_q == FSrc || state_q == FCmd) && !cmd_ready_i) ||
                 ((state_q == FWaitExec || state_q == FRawW || state_q == FDrain) && !exec_idle_i) ||
                 (state_q == FStat && !(stat_valid_o && stat_ready_i));
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) resp_q <= '0;
    else if (!in_end || (stat_valid_o && stat_ready_i)) resp_q <= '0;
    else if (!resp_stall) resp_q <= resp_q + 4'd1;
  end
  `NDP_ASSERT(response_a, !in_end || 32'(resp_q) + 32'(resp_w) <= RespK)
`endif
`ifdef FORMAL
  logic f_past_valid = 1'b0;
  always @(posedge clk_i) f_past_valid <= 1'b1;
  always @(*) if (!f_past_valid) assume (!rst_ni);
  always @(*) if (in_valid_i) assume (in_cnt_i <= 4'd8);   // the interface: 0..8 bytes per beat
  always @(posedge clk_i) if (rst_ni) begin
    cover (in_end && stat_valid_o && stat_ready_i && code_q == zstd_pkg::ErrTruncated && nframes_q == 32'd0);
    cover (in_end && resp_q == 4'd3 && state_q == FDrain);
  end
`endif
`undef ZSTD_FRAME_RESP
`ifdef ZSTD_TRACE
  state_e prev_q;
  always_ff @(posedge clk_i) begin
    prev_q <= state_q;
    if (prev_q != state_q) $display("%0t %m: %s", $time, state_q.name());
  end
`endif
endmodule
