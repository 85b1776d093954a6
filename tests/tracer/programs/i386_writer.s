# i386_writer PATH N: a 32-bit static program with no libc. Opens PATH, makes N write(2)
# calls of one 12-byte line, then one writev, one pwrite64 (at offset 0) and one fsync, all
# through the i386 ABI (int $0x80), and exits 0 (100: open failed, 101: a call failed,
# 2: usage). Assembled with `as --32` and linked `ld -m elf_i386 -static` (tests/tracer/
# CMakeLists.txt), so no 32-bit libc is needed to build it.
        .set SYS_exit, 1
        .set SYS_write, 4
        .set SYS_open, 5
        .set SYS_close, 6
        .set SYS_fsync, 118
        .set SYS_writev, 146
        .set SYS_pwrite64, 181
        .set O_WRONLY_CREAT_TRUNC, 01101
        .set LINE_BYTES, 12

        .section .rodata
line:   .ascii "line 32-bit\n"

        .data
iov:    .long line, LINE_BYTES

        .text
        .globl _start
_start:
        cmpl    $3, (%esp)              # argc
        jne     usage
        # N = strtoul(argv[2]): decimal digits only.
        movl    12(%esp), %esi
        xorl    %edi, %edi
parse:  movzbl  (%esi), %eax
        testl   %eax, %eax
        jz      open
        subl    $'0', %eax
        cmpl    $9, %eax
        ja      usage
        imull   $10, %edi
        addl    %eax, %edi
        incl    %esi
        jmp     parse
open:   movl    $SYS_open, %eax
        movl    8(%esp), %ebx           # argv[1]
        movl    $O_WRONLY_CREAT_TRUNC, %ecx
        movl    $0644, %edx
        int     $0x80
        testl   %eax, %eax
        js      open_failed
        movl    %eax, %ebp              # fd
writes: testl   %edi, %edi
        jz      extras
        movl    $SYS_write, %eax
        movl    %ebp, %ebx
        movl    $line, %ecx
        movl    $LINE_BYTES, %edx
        int     $0x80
        cmpl    $LINE_BYTES, %eax
        jne     call_failed
        decl    %edi
        jmp     writes
extras: movl    $SYS_writev, %eax
        movl    %ebp, %ebx
        movl    $iov, %ecx
        movl    $1, %edx
        int     $0x80
        cmpl    $LINE_BYTES, %eax
        jne     call_failed
        movl    $SYS_pwrite64, %eax     # pwrite64(fd, buf, count, offset low, offset high)
        movl    %ebp, %ebx
        movl    $line, %ecx
        movl    $LINE_BYTES, %edx
        xorl    %esi, %esi
        xorl    %edi, %edi
        int     $0x80
        cmpl    $LINE_BYTES, %eax
        jne     call_failed
        movl    $SYS_fsync, %eax
        movl    %ebp, %ebx
        int     $0x80
        testl   %eax, %eax
        jnz     call_failed
        movl    $SYS_close, %eax
        movl    %ebp, %ebx
        int     $0x80
        xorl    %ebx, %ebx
        jmp     exit
usage:  movl    $2, %ebx
        jmp     exit
open_failed:
        movl    $100, %ebx
        jmp     exit
call_failed:
        movl    $101, %ebx
exit:   movl    $SYS_exit, %eax
        int     $0x80
        .section .note.GNU-stack,"",@progbits
