// ndp_dev_index: the index stage of the chunk engine. For one job at a time it reads the chunk's
// plane-index entry from DRAM (and the next chunk's, which bounds the last block: the 64-byte
// lines of [index + k E, index + (k + 2) E), E = 8 + 4 P), then walks the slots in order: each
// slot's block extent [start, end) goes into the bounds RAM of the job's staging set, and the
// slots the region fetches are checked (spec 7.5/7.6 `Index`: start < end, a span of 13..65548
// bytes, inside the tensor data and DRAM). It reports the set indexed, with the first failing
// slot when a check fails.
//
/// Registers: the job, its set, the entry address (a carry-save tree and one adder), the
/// index lines (four 64-byte lines), the chunk base, the last block's end, the slots' block offsets
/// (a shift register) and the two ends relative to the base, the slot counter, the first failing
/// slot and the done pulse. One slot per cycle, so the block-bound adders are one pair, not
/// sixteen; no path holds the entry multiply, a byte select and the checks in series.
`include "ndp_assert.svh"

module ndp_dev_index #(
  parameter int unsigned Sets   = 4,
  parameter int unsigned DramAw = 30,
  localparam int unsigned SW = (Sets > 1) ? $clog2(Sets) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // job, with the staging set it was given
  input  logic              job_valid_i,
  output logic              job_ready_o,
  input  ndp_dev_pkg::job_t job_i,
  input  logic [SW-1:0]     set_i,
  // DRAM reads of the index lines (one line per request)
  output logic              ix_ar_valid_o,
  input  logic              ix_ar_ready_i,
  output logic [33:0]       ix_ar_line_o,
  input  logic              ix_r_valid_i,
  input  logic [511:0]      ix_r_data_i,
  // bounds RAM writes: slot s of set t at t * 16 + s, {end, start}
  output logic              bd_we_o,
  output logic [SW+3:0]     bd_addr_o,
  output logic [79:0]       bd_data_o,
  // the set is indexed; err: the first failing fetched slot (with its plane and the entry address)
  output logic              done_o,
  output logic [SW-1:0]     done_set_o,
  output logic              done_err_o,
  output logic [3:0]        err_slot_o,
  output logic [7:0]        err_plane_o,
  output logic [39:0]       err_addr_o
);
  typedef enum logic [2:0] {IxIdle, IxAddr, IxFetch, IxWait, IxBase, IxRel, IxScan} ix_e;
  ix_e               st_q;
  ndp_dev_pkg::job_t job_q;
  logic [SW-1:0]     set_q;
  logic [2:0]        req_q, got_q;
  logic [511:0]      line_q [4];
  logic [4:0]        slot_q;
  logic              bad_q, done_q;
  logic [3:0]        bad_slot_q;

  assign job_ready_o = st_q == IxIdle && !done_q;

  // Entry k: E = 8 + 4 P bytes at index + k E = index + 4 k (P + 2); the next entry too unless this
  // is the last chunk. The address is registered in IxAddr: the shifted copies of k for the bits of
  // P + 2 (<= 18, five bits) and the index reduced in a carry-save tree, then one prefix adder.
  logic [7:0]  ent_bytes;
  logic [8:0]  ent_span;
  logic [4:0]  ent_mul;
  logic [39:0] ent_addr_q, ent_addr, ent_s, ent_c, unused_ent_co;
  logic [6*40-1:0] ent_rows;
  assign ent_mul = 5'(5'(job_q.slots) + 5'd2);   // P <= 16
  for (genvar i = 0; i < 5; i++) begin : gen_ent_row
    assign ent_rows[i*40 +: 40] = ent_mul[i] ? 40'(job_q.chunk << (i + 2)) : '0;
  end
  assign ent_rows[5*40 +: 40] = job_q.index;
  csa_tree #(.W(40), .N(6)) u_ent_csa (.rows_i(ent_rows), .sum_o(ent_s), .carry_o(ent_c));
  pfx_add #(.W(40)) u_ent_add (.a_i(ent_s), .b_i(ent_c), .ci_i(1'b0), .sum_o(ent_addr), .co_o(unused_ent_co));
  logic [7:0]  ent_end;          // byte after the entries, from the first line's byte 0 (< 256)
  logic [2:0]  ix_lines;         // index lines to fetch (1..4)
  logic        ix_out_q;
  assign ent_bytes = 8'd8 + (job_q.slots << 2);
  assign ent_span  = job_q.last ? {1'b0, ent_bytes} : {ent_bytes, 1'b0};
  assign ent_end   = 8'(9'(ent_addr_q[5:0]) + ent_span);
  assign ix_lines  = 3'((ent_end - 8'd1) >> 6) + 3'd1;
  assign ix_ar_valid_o = st_q == IxFetch;
  assign ix_ar_line_o  = ent_addr_q[39:6] + 34'(req_q);

  // Little-endian fields of the fetched lines by byte position (from the first line's byte 0)
  logic [2047:0] lines;
  assign lines = {line_q[3], line_q[2], line_q[1], line_q[0]};
  function automatic logic [63:0] field64(input logic [2047:0] l, input logic [7:0] pos);
    field64 = l[32'(pos) * 8 +: 64];
  endfunction

  // Chunk base (image + chunk offset) and the end of the last block, latched in IxBase with the
  // slots' block offsets (rels_q: offset s in bits 32 s, shifted down one offset per scanned slot);
  // in IxRel the last block's end and the tensor data end relative to the chunk base (signed).
  logic [63:0]  coff, noff;
  logic [41:0]  cbase_q, lend_q, cbase, nbase, unused_cb_co, unused_nb_co;
  logic [42:0]  lrel_q, drel_q, lrel, drel, unused_lr_co, unused_dr_co;
  logic [511:0] rels_q;
  logic [7:0]   noff_pos_q;      // the next entry's byte position (registered in IxFetch)
  logic         coff_hi_q, noff_hi_q;
  assign coff = field64(lines, 8'(ent_addr_q[5:0]));
  assign noff = field64(lines, noff_pos_q);
  // the sums and differences of IxBase / IxRel as prefix adders (Yosys' + rippled them)
  pfx_add #(.W(42)) u_cbase (.a_i(42'(job_q.image)), .b_i(42'(coff[39:0])), .ci_i(1'b0),
                             .sum_o(cbase), .co_o(unused_cb_co));
  pfx_add #(.W(42)) u_nbase (.a_i(42'(job_q.image)), .b_i(42'(noff[39:0])), .ci_i(1'b0),
                             .sum_o(nbase), .co_o(unused_nb_co));
  logic [42:0] cbase_n;           // ~cbase_q: a - cbase_q = a + ~cbase_q + 1
  assign cbase_n = ~{1'b0, cbase_q};
  pfx_add #(.W(43)) u_lrel (.a_i({1'b0, lend_q}), .b_i(cbase_n), .ci_i(1'b1),
                            .sum_o(lrel), .co_o(unused_lr_co));
  pfx_add #(.W(43)) u_drel (.a_i({3'b000, job_q.data_end}), .b_i(cbase_n), .ci_i(1'b1),
                            .sum_o(drel), .co_o(unused_dr_co));

  // Slot s: start = base + rel[s], end = base + rel[s + 1] (the last slot: lend). The checks use
  // the offsets from the base (r0 = rel[s], r1 = rel[s + 1] or lrel), the same comparisons as on
  // the sums: no sum exceeds 42 bits, so start >= end is r0 >= r1, the span is r1 - r0 and
  // end > data_end is r1 > drel.
  logic [15:0] need;
  logic        last_slot, slot_bad;
  logic [42:0] r0, r1, rd;
  logic [39:0] bstart, bend;      // DRAM addresses (the bounds RAM keeps 40 bits)
  assign need      = ndp_dev_pkg::need_mask(job_q.fmt, job_q.k, job_q.guard, job_q.expbyte);
  assign last_slot = slot_q + 5'd1 >= 5'(job_q.slots);
  assign r0        = 43'(rels_q[31:0]);
  assign r1        = last_slot ? lrel_q : 43'(rels_q[63:32]);
  assign rd        = r1 - r0;
  assign bstart    = 40'(cbase_q + 42'(rels_q[31:0]));
  assign bend      = 40'(last_slot ? lend_q : cbase_q + 42'(rels_q[63:32]));
  // spec 7.6: start < end, 13..65548 bytes, inside the tensor data (a chunk offset of 2^40 or more
  // lies past every DRAM, like the model's 64-bit sums)
  assign slot_bad  = ix_out_q || $signed(rd) < 43'sd13 || $signed(rd) > 43'sd65548
                  || $signed(r1) > $signed(drel_q) || coff_hi_q || (last_slot && !job_q.last && noff_hi_q);

  assign bd_we_o   = st_q == IxScan;
  assign bd_addr_o = {set_q, slot_q[3:0]};
  assign bd_data_o = {bend, bstart};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= IxIdle;
      req_q  <= '0;
      got_q  <= '0;
      slot_q <= '0;
      bad_q  <= 1'b0;
      done_q <= 1'b0;
    end else begin
      done_q <= 1'b0;
      if (ix_r_valid_i) got_q <= got_q + 3'd1;
      unique case (st_q)
        IxIdle: if (job_valid_i && !done_q) begin
          st_q  <= IxAddr;
          req_q <= '0;
          got_q <= '0;
        end
        IxAddr: st_q <= IxFetch;
        IxFetch: if (ix_ar_ready_i) begin
          req_q <= req_q + 3'd1;
          if (req_q + 3'd1 == ix_lines) st_q <= IxWait;
        end
        IxWait: if (got_q == req_q) st_q <= IxBase;
        IxBase: begin
          st_q   <= IxRel;
          slot_q <= '0;
          bad_q  <= 1'b0;
        end
        IxRel: st_q <= IxScan;
        IxScan: begin
          if (slot_bad && need[slot_q[3:0]] && !bad_q) bad_q <= 1'b1;
          slot_q <= slot_q + 5'd1;
          if (last_slot) begin
            st_q   <= IxIdle;
            done_q <= 1'b1;
          end
        end
        default: st_q <= IxIdle;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_q == IxIdle && job_valid_i && !done_q) begin
      job_q <= job_i;
      set_q <= set_i;
    end
    if (st_q == IxAddr) ent_addr_q <= ent_addr;
    if (st_q == IxFetch) begin
      ix_out_q   <= 42'(ent_addr_q) + 42'(ent_span) > 42'(64'(1) << DramAw);
      noff_pos_q <= 8'(ent_addr_q[5:0]) + ent_bytes;
    end
    if (ix_r_valid_i) line_q[got_q[1:0]] <= ix_r_data_i;
    if (st_q == IxBase) begin
      cbase_q   <= cbase;
      lend_q    <= job_q.last ? 42'(job_q.data_end) : nbase;
      coff_hi_q <= coff[63:40] != '0;
      noff_hi_q <= noff[63:40] != '0;
      rels_q    <= 512'(lines >> {8'(ent_addr_q[5:0]) + 8'd8, 3'b000});
    end
    if (st_q == IxRel) begin
      lrel_q <= lrel;
      drel_q <= drel;
    end
    if (st_q == IxScan) rels_q <= rels_q >> 32;
    if (st_q == IxScan && slot_bad && need[slot_q[3:0]] && !bad_q) bad_slot_q <= slot_q[3:0];
  end

  assign done_o      = done_q;
  assign done_set_o  = set_q;
  assign done_err_o  = bad_q;
  assign err_slot_o  = bad_slot_q;
  assign err_plane_o = ndp_dev_pkg::plane_of(job_q.expbyte, bad_slot_q);
  assign err_addr_o  = ent_addr_q;

  logic unused_job_fields;
  assign unused_job_fields = ^{job_q.tensor, job_q.n, job_q.prefetch};

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(slots_legal_a, st_q == IxIdle || (job_q.slots >= 8'd1 && job_q.slots <= 8'd16))
  `NDP_ASSERT(lines_fit_a, st_q != IxFetch || (ix_lines >= 3'd1 && ix_lines <= 3'd4))
  `NDP_ASSERT(entry_address_a, st_q != IxFetch
                               || ent_addr_q == job_q.index + job_q.chunk * 40'(ent_bytes))
  `NDP_ASSERT(no_extra_data_a, !ix_r_valid_i || st_q == IxFetch || st_q == IxWait)
endmodule
