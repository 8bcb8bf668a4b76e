; aes_cbc_dec_vaes512.asm - AES-256-CBC decryption with VAES on zmm registers.
;
; CBC decryption is parallel: 8 zmm registers of 4 blocks each (512 bytes)
; are in flight per iteration, enough to cover the VAESDEC latency. The
; buffer is walked from its end towards its start, so the chaining operand
; of every register ("the previous ciphertext", the 64 bytes starting 16
; bytes earlier) is still ciphertext when it is loaded, even in place.
;
; void fz7_aes_cbc_dec_vaes512(const void *rk, uint8_t iv[16], uint8_t *buf,
;                              size_t nblocks);          (System V AMD64)
; rk: the 15 decryption round keys of crypto/aes.h (240 bytes, any alignment).
; Needs AVX-512F and VAES. Clobbers only caller-saved registers.

default rel
section .text

; ---- register roles -------------------------------------------------------
%define RK      rdi             ; decryption round keys
%define IVP     rsi             ; iv[16]: read first, written last
%define BUF     rdx             ; first block
%define NBLK    rcx             ; number of blocks
%define PTR     r8              ; the group being decrypted (walks down)
%define HEADEND r9              ; BUF + 16 * (blocks in the head)
%define NEWIV0  r10             ; last ciphertext block, the IV for the
%define NEWIV1  r11             ;   next call (saved before it is overwritten)
%define NBYTES  rax             ; 16 * NBLK, to find the last block
%define SHIFT   rcx             ; .first: 2 * blocks left (NBLK's register, no
%define SHIFT8  cl              ;   longer needed there)
%define MASK32  eax             ; .first: (1 << SHIFT) - 1, qwords to load
%define KMASK   k1              ; .first: MASK32 as an opmask

%define DATA_BASE  0            ; zmm0..zmm7: blocks being decrypted
%define CHAIN_BASE 8            ; zmm8..zmm15: previous ciphertext ^ last key
%define KEY_BASE   16           ; zmm16..zmm30: round keys 0..14, broadcast
%define IVREG   zmm31           ; the caller's IV in every lane (head only)

%define DATA(w, j)  w %+ %eval(DATA_BASE + (j))
%define CHAIN(w, j) w %+ %eval(CHAIN_BASE + (j))
%define KEY(w, i)   w %+ %eval(KEY_BASE + (i))

%define GROUP_REGS  8           ; registers per main-loop iteration
%define GROUP_BYTES 512         ; 8 registers x 64 bytes
%define GROUP_BLOCKS 32
%define PREFETCH_DIST 2048      ; bytes below the group: 4 groups ahead, so
                                ; lines of buffers larger than the cache arrive in time

; AES_DEC_ROUNDS w, n: rounds 1..13 (AESDEC with round keys 1..13) on data
; registers 0..n-1 of width w, round-major so the n chains interleave.
; Round 0 (XOR key 0) and the last round are done by the caller, which
; folds the chaining XOR into the last round key.
%macro AES_DEC_ROUNDS 2
%assign %%r 1
%rep 13
%assign %%j 0
%rep %2
        vaesdec DATA(%1, %%j), DATA(%1, %%j), KEY(%1, %%r)
%assign %%j %%j + 1
%endrep
%assign %%r %%r + 1
%endrep
%endmacro

global fz7_aes_cbc_dec_vaes512
fz7_aes_cbc_dec_vaes512:
        test    NBLK, NBLK
        jz      .return

        ; Round keys, each broadcast to the 4 lanes once.
%assign i 0
%rep 15
        vbroadcasti32x4 KEY(zmm, i), [RK + 16 * i]
%assign i i + 1
%endrep

        ; The last ciphertext block becomes the IV of the next call.
        mov     NBYTES, NBLK
        shl     NBYTES, 4
        mov     NEWIV0, [BUF + NBYTES - 16]
        mov     NEWIV1, [BUF + NBYTES - 8]

        ; Head = the first ((nblocks - 1) mod 32) + 1 blocks (1..32); the
        ; rest is whole groups of 32 blocks, each with a block before it.
        lea     HEADEND, [NBLK - 1]
        and     HEADEND, GROUP_BLOCKS - 1
        inc     HEADEND
        shl     HEADEND, 4
        add     HEADEND, BUF
        lea     PTR, [BUF + NBYTES - GROUP_BYTES]
        cmp     NBLK, GROUP_BLOCKS      ; no whole group besides the head
        jbe     .head

align 32
.group:
        ; The walk is downwards; ask for the lines a few groups below now
        ; (prefetches below BUF are harmless: they never fault).
%assign j 0
%rep GROUP_REGS
        prefetcht0 [PTR - PREFETCH_DIST + 64 * j]
%assign j j + 1
%endrep
        ; Load and XOR round key 0 (all loads precede the stores).
%assign j 0
%rep GROUP_REGS
        vpxorq  DATA(zmm, j), KEY(zmm, 0), [PTR + 64 * j]
%assign j j + 1
%endrep
        AES_DEC_ROUNDS zmm, GROUP_REGS
        ; Last round, highest register first: register j's chaining operand
        ; covers the last block of register j-1, not yet stored.
%assign j GROUP_REGS - 1
%rep GROUP_REGS
        vpxorq  CHAIN(zmm, j), KEY(zmm, 14), [PTR + 64 * j - 16]
        vaesdeclast DATA(zmm, j), DATA(zmm, j), CHAIN(zmm, j)
        vmovdqu64 [PTR + 64 * j], DATA(zmm, j)
%assign j j - 1
%endrep
        sub     PTR, GROUP_BYTES
        cmp     PTR, HEADEND
        jae     .group

.head:
        ; Whole registers of 4 blocks from the end of the head down, while
        ; a block precedes them.
        lea     PTR, [HEADEND - 64]
.head_reg:
        cmp     PTR, BUF
        jbe     .first
        vpxorq  DATA(zmm, 0), KEY(zmm, 0), [PTR]
        AES_DEC_ROUNDS zmm, 1
        vpxorq  CHAIN(zmm, 0), KEY(zmm, 14), [PTR - 16]
        vaesdeclast DATA(zmm, 0), DATA(zmm, 0), CHAIN(zmm, 0)
        vmovdqu64 [PTR], DATA(zmm, 0)
        sub     PTR, 64
        jmp     .head_reg

.first:
        ; The first 1..4 blocks at BUF, masked: qword mask (1 << 2r) - 1 for
        ; r blocks. Their chaining operand is [iv, c0, c1, c2], made by
        ; shifting the IV (lane 3 of IVREG) in below the ciphertext.
        lea     SHIFT, [PTR + 64]
        sub     SHIFT, BUF
        shr     SHIFT, 3                ; 2r
        mov     MASK32, 1
        shl     MASK32, SHIFT8
        dec     MASK32
        kmovw   KMASK, MASK32
        vmovdqu64 DATA(zmm, 0) {KMASK}{z}, [BUF]
        vbroadcasti32x4 IVREG, [IVP]
        valignq CHAIN(zmm, 0), DATA(zmm, 0), IVREG, 6
        vpxorq  DATA(zmm, 0), DATA(zmm, 0), KEY(zmm, 0)
        AES_DEC_ROUNDS zmm, 1
        vpxorq  CHAIN(zmm, 0), CHAIN(zmm, 0), KEY(zmm, 14)
        vaesdeclast DATA(zmm, 0), DATA(zmm, 0), CHAIN(zmm, 0)
        vmovdqu64 [BUF] {KMASK}, DATA(zmm, 0)

        mov     [IVP], NEWIV0
        mov     [IVP + 8], NEWIV1
        vzeroupper
.return:
        ret

section .note.GNU-stack noalloc noexec nowrite progbits
