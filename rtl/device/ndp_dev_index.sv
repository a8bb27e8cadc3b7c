// ndp_dev_index: the index stage of the chunk engine. For one job at a time it reads the chunk's
// plane-index entry from DRAM (and the next chunk's, which bounds the last block: the 64-byte
// lines of [index + k E, index + (k + 2) E), E = 8 + 4 P), then walks the slots in order: each
// slot's block extent [start, end) goes into the bounds RAM of the job's staging set, and the
// slots the region fetches are checked (spec 7.5/7.6 `Index`: start < end, a span of 13..65548
// bytes, inside the tensor data and DRAM). It reports the set indexed, with the first failing
// slot when a check fails.
//
/// Registers: the job, its set, the index lines (four 64-byte lines), the chunk base and the
/// last block's end, the slot counter and the first failing slot. One slot per cycle, so the
/// block-bound adders are one pair, not sixteen.
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
  typedef enum logic [2:0] {IxIdle, IxFetch, IxWait, IxBase, IxScan, IxDone} ix_e;
  ix_e               st_q;
  ndp_dev_pkg::job_t job_q;
  logic [SW-1:0]     set_q;
  logic [2:0]        req_q, got_q;
  logic [511:0]      line_q [4];
  logic [4:0]        slot_q;
  logic              bad_q;
  logic [3:0]        bad_slot_q;

  assign job_ready_o = st_q == IxIdle;

  // Entry k: E = 8 + 4 P bytes at index + k E; the next entry too unless this is the last chunk
  logic [7:0]  ent_bytes;
  logic [8:0]  ent_span;
  logic [39:0] ent_addr;
  logic [33:0] ix_first, ix_last;
  logic        ix_out;
  assign ent_bytes = 8'd8 + (job_q.slots << 2);
  assign ent_addr  = job_q.index + job_q.chunk * 40'(ent_bytes);
  assign ix_first  = ent_addr[39:6];
  assign ent_span  = job_q.last ? {1'b0, ent_bytes} : {ent_bytes, 1'b0};
  assign ix_last   = 34'((ent_addr + 40'(ent_span) - 40'd1) >> 6);
  assign ix_out    = 42'(ent_addr) + 42'(ent_span) > 42'(64'(1) << DramAw);
  assign ix_ar_valid_o = st_q == IxFetch;
  assign ix_ar_line_o  = ix_first + 34'(req_q);

  // Little-endian fields of the fetched lines by byte position (from the first line's byte 0)
  logic [2047:0] lines;
  assign lines = {line_q[3], line_q[2], line_q[1], line_q[0]};
  function automatic logic [63:0] field64(input logic [2047:0] l, input logic [7:0] pos);
    field64 = l[32'(pos) * 8 +: 64];
  endfunction
  function automatic logic [31:0] field32(input logic [2047:0] l, input logic [7:0] pos);
    field32 = l[32'(pos) * 8 +: 32];
  endfunction

  // Chunk base (image + chunk offset) and the end of the last block, latched in IxBase
  logic [63:0] coff, noff;
  logic [41:0] cbase_q, lend_q;
  logic        coff_hi_q, noff_hi_q;
  assign coff = field64(lines, 8'(ent_addr[5:0]));
  assign noff = field64(lines, 8'(ent_addr[5:0]) + ent_bytes);

  // Slot s: start = base + rel[s], end = base + rel[s + 1] (the last slot: lend)
  logic [15:0] need;
  logic        last_slot, slot_bad;
  logic [41:0] bstart, bend, blen;
  assign need      = ndp_dev_pkg::need_mask(job_q.fmt, job_q.k, job_q.guard, job_q.expbyte);
  assign last_slot = slot_q + 5'd1 >= 5'(job_q.slots);
  assign bstart    = cbase_q + 42'(field32(lines, 8'(ent_addr[5:0]) + 8'd8 + 8'(slot_q[3:0]) * 8'd4));
  assign bend      = last_slot ? lend_q
                   : cbase_q + 42'(field32(lines, 8'(ent_addr[5:0]) + 8'd12 + 8'(slot_q[3:0]) * 8'd4));
  assign blen      = bend - bstart;
  // spec 7.6: start < end, 13..65548 bytes, inside the tensor data (a chunk offset of 2^40 or more
  // lies past every DRAM, like the model's 64-bit sums)
  assign slot_bad  = ix_out || bstart >= bend || blen < 42'd13 || blen > 42'd65548
                  || bend > 42'(job_q.data_end) || coff_hi_q || (last_slot && !job_q.last && noff_hi_q);

  assign bd_we_o   = st_q == IxScan;
  assign bd_addr_o = {set_q, slot_q[3:0]};
  assign bd_data_o = {bend[39:0], bstart[39:0]};

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      st_q   <= IxIdle;
      req_q  <= '0;
      got_q  <= '0;
      slot_q <= '0;
      bad_q  <= 1'b0;
    end else begin
      if (ix_r_valid_i) got_q <= got_q + 3'd1;
      unique case (st_q)
        IxIdle: if (job_valid_i) begin
          st_q  <= IxFetch;
          req_q <= '0;
          got_q <= '0;
        end
        IxFetch: if (ix_ar_ready_i) begin
          req_q <= req_q + 3'd1;
          if (ix_first + 34'(req_q) == ix_last) st_q <= IxWait;
        end
        IxWait: if (got_q == req_q) st_q <= IxBase;
        IxBase: begin
          st_q   <= IxScan;
          slot_q <= '0;
          bad_q  <= 1'b0;
        end
        IxScan: begin
          if (slot_bad && need[slot_q[3:0]] && !bad_q) bad_q <= 1'b1;
          slot_q <= slot_q + 5'd1;
          if (last_slot) st_q <= IxDone;
        end
        IxDone: st_q <= IxIdle;
        default: st_q <= IxIdle;
      endcase
    end
  end

  always_ff @(posedge clk_i) begin
    if (st_q == IxIdle && job_valid_i) begin
      job_q <= job_i;
      set_q <= set_i;
    end
    if (ix_r_valid_i) line_q[got_q[1:0]] <= ix_r_data_i;
    if (st_q == IxBase) begin
      cbase_q   <= 42'(job_q.image) + 42'(coff[39:0]);
      lend_q    <= job_q.last ? 42'(job_q.data_end) : 42'(job_q.image) + 42'(noff[39:0]);
      coff_hi_q <= coff[63:40] != '0;
      noff_hi_q <= noff[63:40] != '0;
    end
    if (st_q == IxScan && slot_bad && need[slot_q[3:0]] && !bad_q) bad_slot_q <= slot_q[3:0];
  end

  assign done_o      = st_q == IxDone;
  assign done_set_o  = set_q;
  assign done_err_o  = bad_q;
  assign err_slot_o  = bad_slot_q;
  assign err_plane_o = ndp_dev_pkg::plane_of(job_q.expbyte, bad_slot_q);
  assign err_addr_o  = ent_addr;

  logic unused_job_fields;
  assign unused_job_fields = ^{job_q.tensor, job_q.n, job_q.prefetch};

  // ---------------------------------------------------------------------------------------------
  // Assertions
  `NDP_ASSERT(slots_legal_a, st_q == IxIdle || (job_q.slots >= 8'd1 && job_q.slots <= 8'd16))
  `NDP_ASSERT(lines_fit_a, st_q != IxFetch || ix_last - ix_first < 34'd4)
  `NDP_ASSERT(no_extra_data_a, !ix_r_valid_i || st_q == IxFetch || st_q == IxWait)
endmodule
