# i386_clone_untraced PATH: a 32-bit static program with no libc. Opens PATH, then makes a
# child with i386 clone(CLONE_UNTRACED | SIGCHLD), which writes one 12-byte line to PATH and
# exits 0 (101: the write failed: under a seccomp filter with no tracer it gets ENOSYS). The
# parent waits for it and exits with its status (100: open or clone failed, 2: usage).
# Built like i386_writer.s.
        .set SYS_exit, 1
        .set SYS_write, 4
        .set SYS_open, 5
        .set SYS_waitpid, 7
        .set SYS_clone, 120
        .set O_WRONLY_CREAT_TRUNC, 01101
        .set CLONE_UNTRACED_SIGCHLD, 0x00800011
        .set LINE_BYTES, 12

        .section .rodata
line:   .ascii "line cloned\n"

        .bss
status: .long 0

        .text
        .globl _start
_start:
        cmpl    $2, (%esp)              # argc
        jne     usage
        movl    $SYS_open, %eax
        movl    8(%esp), %ebx           # argv[1]
        movl    $O_WRONLY_CREAT_TRUNC, %ecx
        movl    $0644, %edx
        int     $0x80
        testl   %eax, %eax
        js      failed
        movl    %eax, %ebp              # fd
        movl    $SYS_clone, %eax        # clone(flags, newsp 0: a copy of our stack, ...)
        movl    $CLONE_UNTRACED_SIGCHLD, %ebx
        xorl    %ecx, %ecx
        xorl    %edx, %edx
        xorl    %esi, %esi
        xorl    %edi, %edi
        int     $0x80
        testl   %eax, %eax
        js      failed
        jz      child
        movl    %eax, %ebx              # waitpid(child, &status, 0)
        movl    $SYS_waitpid, %eax
        movl    $status, %ecx
        xorl    %edx, %edx
        int     $0x80
        movzbl  status+1, %ebx          # WEXITSTATUS
        jmp     exit
child:  movl    $SYS_write, %eax
        movl    %ebp, %ebx
        movl    $line, %ecx
        movl    $LINE_BYTES, %edx
        int     $0x80
        xorl    %ebx, %ebx
        cmpl    $LINE_BYTES, %eax
        je      exit
        movl    $101, %ebx
        jmp     exit
usage:  movl    $2, %ebx
        jmp     exit
failed: movl    $100, %ebx
exit:   movl    $SYS_exit, %eax
        int     $0x80
        .section .note.GNU-stack,"",@progbits
