#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The seeds of tests/fuzz/fuzz_elf.c, written to tests/fuzz/elf/ (checked in; this
script says how they were made):  tests/fuzz/make_elf_seeds.py [DIR]

Each seed is one control byte (fuzz_elf.c: bits 0-1 the read's flags, bits 2-3
its limits, bit 4 the file shrinking while it is read) followed by an ELF file:

- real_*: a small program built here with cc -Os, as it comes (.symtab and
  .dynsym), stripped (-s), stripped with its functions exported (-rdynamic),
  non-PIE, as a shared library, and its separate debug file (objcopy
  --only-keep-debug).  They depend on the toolchain that made them
  (cc -m32 is not tried: the ELF32 seeds are made by hand below).
- everything else: made by hand, small files whose headers claim what they do
  not hold (3 GiB symbol tables, 1 GiB notes, 2^32-1 sections by extended
  numbering, PN_XNUM program headers), thousands of symbols sharing one long
  name, links, entry sizes and offsets out of range, bad build id notes, and
  files that are not ELF of this machine.

Every seed is under 64 KiB, the most fuzz_elf.c lets libFuzzer read.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

MAX_SEED = 64 << 10

# Control byte (fuzz_elf.c).
SYMTAB_ONLY, NO_SYMBOLS = 0x01, 0x02
LIMITS_BRIEF, LIMITS_DISKIO, LIMITS_TIGHT, LIMITS_NO_NAMES = 0 << 2, 1 << 2, 2 << 2, 3 << 2
SHRUNK = 0x10

ET_EXEC, ET_DYN = 2, 3
EM_386, EM_X86_64 = 3, 62
SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB = 0, 1, 2, 3
SHT_NOTE, SHT_NOBITS, SHT_DYNSYM = 7, 8, 11
SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
PT_LOAD, PT_NOTE = 1, 4
PF_X, PF_R = 1, 4
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
STT_NOTYPE, STT_OBJECT, STT_FUNC, STT_FILE, STT_GNU_IFUNC = 0, 1, 2, 4, 10
SHN_UNDEF, SHN_ABS, SHN_XINDEX = 0, 0xfff1, 0xffff
PN_XNUM = 0xffff
NT_GNU_ABI_TAG, NT_GNU_BUILD_ID = 1, 3
GIB = 1 << 30

BUILD_ID = bytes(range(0xa0, 0xa0 + 20))


def align(n, a):
    return (n + a - 1) // a * a if a > 1 else n


def strtab(names):
    """A string table of names: its bytes and each name's offset."""
    data, offsets = b"\0", {}
    for name in names:
        if name not in offsets:
            offsets[name] = len(data)
            data += name + b"\0"
    return data, offsets


def note(name, ntype, desc, namesz=None, descsz=None, a=4):
    """One note; namesz and descsz may lie."""
    head = struct.pack("<III", len(name) if namesz is None else namesz,
                       len(desc) if descsz is None else descsz, ntype)
    return head + name.ljust(align(len(name), a), b"\0") + desc.ljust(align(len(desc), a), b"\0")


def build_id_note(desc=BUILD_ID, **kw):
    return note(b"GNU\0", NT_GNU_BUILD_ID, desc, **kw)


class Elf:
    """An ELF file laid out as: header, program headers, sections' bytes,
    section names, section headers.  Any header field may be overridden
    after the layout (the lies)."""

    def __init__(self, bits=64, etype=ET_DYN, base=0):
        self.bits, self.etype, self.base = bits, etype, base
        self.machine = EM_X86_64 if bits == 64 else EM_386
        self.sections = []	# dicts; section 0 (SHT_NULL) is added at build
        self.segments = []
        self.ehdr = {}		# e_* overrides
        self.null = {}		# section 0's fields (extended numbering)
        self.ident = {}		# e_ident byte overrides: index -> value
        self.tail = b""		# bytes after the section headers

    @property
    def sym_size(self):
        return 24 if self.bits == 64 else 16

    def add(self, name, stype, data=b"", **kw):
        self.sections.append(dict(name=name, type=stype, data=data, **kw))
        return len(self.sections)	# its index (section 0 comes first)

    def index(self, name):
        for i, s in enumerate(self.sections):
            if s["name"] == name:
                return i + 1
        raise KeyError(name)

    def section(self, name):
        return self.sections[self.index(name) - 1]

    def sym(self, name_off, value, size, bind=STB_GLOBAL, stype=STT_FUNC, shndx=2, other=0):
        info = bind << 4 | stype
        if self.bits == 64:
            return struct.pack("<IBBHQQ", name_off, info, other, shndx, value, size)
        return struct.pack("<IIIBBH", name_off, value & 0xffffffff, size & 0xffffffff, info,
                           other, shndx)

    def build(self):
        is64 = self.bits == 64
        ehsize = 64 if is64 else 52
        phentsize = 56 if is64 else 32
        shentsize = 64 if is64 else 40
        names, name_offs = strtab([s["name"] for s in self.sections] + [b".shstrtab"])
        sections = self.sections + [dict(name=b".shstrtab", type=SHT_STRTAB, data=names)]
        off = ehsize + phentsize * len(self.segments)
        body = b""
        for s in sections:
            off2 = align(off, s.get("align", 8))
            body += b"\0" * (off2 - off)
            s["_offset"] = off2
            if s["type"] != SHT_NOBITS:
                body += s["data"]
                off = off2 + len(s["data"])
            else:
                off = off2
        shoff = align(off, 8)
        body += b"\0" * (shoff - off)
        shnum = len(sections) + 1
        end = shoff + shnum * shentsize + len(self.tail)

        def shdr(f):
            if is64:
                return struct.pack("<IIQQQQIIQQ", f["name"], f["type"], f["flags"], f["addr"],
                                   f["offset"], f["size"], f["link"], f["info"], f["align"],
                                   f["entsize"])
            return struct.pack("<IIIIIIIIII", *(f[k] & 0xffffffff for k in (
                "name", "type", "flags", "addr", "offset", "size", "link", "info", "align",
                "entsize")))

        null = dict(name=0, type=SHT_NULL, flags=0, addr=0, offset=0, size=0, link=0, info=0,
                    align=0, entsize=0)
        null.update(self.null)
        table = shdr(null)
        for s in sections:
            link = s.get("link", 0)
            flags = s.get("flags", 0)
            f = dict(name=name_offs[s["name"]], type=s["type"], flags=flags,
                     addr=self.base + s["_offset"] if flags & SHF_ALLOC else 0,
                     offset=s["_offset"], size=len(s["data"]),
                     link=self.index(link) if isinstance(link, bytes) else link,
                     info=s.get("info", 0), align=s.get("align", 8), entsize=s.get("entsize", 0))
            f.update({k: v for k, v in s.items() if k in ("size", "offset", "addr", "entsize")})
            table += shdr(f)

        phdrs = b""
        for p in self.segments:
            f = dict(type=p["type"], flags=p.get("flags", PF_R), offset=0, filesz=end,
                     align=p.get("align", 4 if p["type"] == PT_NOTE else 0x1000))
            if "section" in p:
                s = sections[self.index(p["section"]) - 1]
                f.update(offset=s["_offset"], filesz=len(s["data"]))
            f.update({k: v for k, v in p.items() if k in ("offset", "filesz", "vaddr", "memsz")})
            f.setdefault("vaddr", self.base + f["offset"])
            f.setdefault("memsz", f["filesz"])
            if is64:
                phdrs += struct.pack("<IIQQQQQQ", f["type"], f["flags"], f["offset"], f["vaddr"],
                                     f["vaddr"], f["filesz"], f["memsz"], f["align"])
            else:
                phdrs += struct.pack("<IIIIIIII", *(f[k] & 0xffffffff for k in (
                    "type", "offset", "vaddr", "vaddr", "filesz", "memsz", "flags", "align")))

        ident = bytearray(b"\x7fELF" + bytes([2 if is64 else 1, 1, 1]) + b"\0" * 9)
        for i, v in self.ident.items():
            ident[i] = v
        e = dict(type=self.etype, machine=self.machine, version=1, entry=0,
                 phoff=ehsize if self.segments else 0, shoff=shoff, flags=0, ehsize=ehsize,
                 phentsize=phentsize, phnum=len(self.segments), shentsize=shentsize,
                 shnum=shnum, shstrndx=shnum - 1)
        e.update(self.ehdr)
        fields = [e[k] for k in ("type", "machine", "version", "entry", "phoff", "shoff", "flags",
                                 "ehsize", "phentsize", "phnum", "shentsize", "shnum", "shstrndx")]
        head = bytes(ident) + struct.pack("<HHIQQQIHHHHHH" if is64 else "<HHIIIIIHHHHHH", *fields)
        return head + phdrs + body + table + self.tail


def base_elf(bits=64, nfuncs=6, symtab=b".symtab", notes=True, etype=ET_DYN, base=0):
    """A small file as a linker makes it: a build id note and its PT_NOTE, code
    and its PT_LOAD (the whole file), a symbol table of functions (global,
    weak, local, an ifunc), an object, an undefined function and a file
    symbol."""
    e = Elf(bits, etype, base)
    if notes:
        e.add(b".note.gnu.build-id", SHT_NOTE, build_id_note(), flags=SHF_ALLOC, align=4)
    text = e.add(b".text", SHT_PROGBITS, b"\xc3" * (16 * nfuncs), flags=SHF_ALLOC | SHF_EXECINSTR,
                 align=16)
    names = [b"f%d" % i for i in range(nfuncs)] + [b"an_object", b"printf", b"main.c"]
    strs, offs = strtab(names)
    e.add(symtab, SHT_SYMTAB if symtab == b".symtab" else SHT_DYNSYM, b"",
          link=b".strtab" if symtab == b".symtab" else b".dynstr", entsize=e.sym_size)
    e.add(b".strtab" if symtab == b".symtab" else b".dynstr", SHT_STRTAB, strs, align=1)
    e.segments.append(dict(type=PT_LOAD, flags=PF_R | PF_X))
    if notes:
        e.segments.append(dict(type=PT_NOTE, section=b".note.gnu.build-id"))
    # The text's address is known only after the layout: lay out once to learn it.
    e.build()
    text_addr = base + e.sections[text - 1]["_offset"]
    binds = [STB_GLOBAL, STB_WEAK, STB_LOCAL]
    syms = e.sym(0, 0, 0, STB_LOCAL, STT_NOTYPE, 0)
    syms += e.sym(offs[b"main.c"], 0, 0, STB_LOCAL, STT_FILE, SHN_ABS)
    for i in range(nfuncs):
        syms += e.sym(offs[b"f%d" % i], text_addr + 16 * i, 16, binds[i % 3],
                      STT_GNU_IFUNC if i == nfuncs - 1 else STT_FUNC, text)
    syms += e.sym(offs[b"an_object"], text_addr, 8, STB_GLOBAL, STT_OBJECT, text)
    syms += e.sym(offs[b"printf"], 0, 0, STB_GLOBAL, STT_FUNC, SHN_UNDEF)
    e.section(symtab)["data"] = syms
    e.section(symtab)["info"] = 2
    return e


def shared_name(bits, count, name_len):
    """count function symbols, all named by one name of name_len bytes."""
    e = Elf(bits)
    name = bytes(b"abcdefghijklmnopqrstuvwxyz"[i % 26] for i in range(name_len))
    strs, offs = strtab([name])
    e.add(b".symtab", SHT_SYMTAB, b"", link=b".strtab", entsize=e.sym_size)
    e.add(b".strtab", SHT_STRTAB, strs, align=1)
    e.segments.append(dict(type=PT_LOAD, flags=PF_R | PF_X))
    syms = e.sym(0, 0, 0, STB_LOCAL, STT_NOTYPE, 0)
    for i in range(count):
        syms += e.sym(offs[name], 0x1000 + 16 * i, 16, shndx=1)
    e.section(b".symtab")["data"] = syms
    return e


def hand_made():
    seeds = {}

    def seed(name, ctrl, elf):
        seeds[name] = bytes([ctrl]) + (elf.build() if isinstance(elf, Elf) else elf)

    # Well-formed ones, for the fuzzer to start from.
    seed("elf64", LIMITS_BRIEF, base_elf())
    seed("elf32", LIMITS_BRIEF, base_elf(32))
    seed("elf64_exec", LIMITS_BRIEF, base_elf(etype=ET_EXEC, base=0x400000))
    seed("elf64_dynsym", LIMITS_BRIEF, base_elf(symtab=b".dynsym"))
    seed("elf64_dynsym_symtab_only", SYMTAB_ONLY, base_elf(symtab=b".dynsym"))
    seed("elf64_no_symbols", NO_SYMBOLS, base_elf())
    seed("elf64_tight", LIMITS_TIGHT, base_elf(nfuncs=20))
    # At the limits and one past them: 16 and 17 functions for max_symbols 16
    # (f5 is an ifunc), names of max_name_len and one more byte.
    seed("elf64_tight_16", LIMITS_TIGHT, base_elf(nfuncs=16))
    seed("elf64_tight_17", LIMITS_TIGHT, base_elf(nfuncs=17))
    for name, ctrl, cut in [("names_at_64", LIMITS_BRIEF, 64), ("names_at_8", LIMITS_TIGHT, 8),
                            ("names_at_240", LIMITS_DISKIO, 240)]:
        e = base_elf(nfuncs=4)
        names = [b"n" * (cut - 1), b"m" * cut, b"p" * (cut + 1), b"q" * cut + b"@@V1"]
        strs, offs = strtab(names)
        e.section(b".strtab")["data"] = strs
        text_addr = e.sections[e.index(b".text") - 1]["_offset"]
        syms = e.sym(0, 0, 0, STB_LOCAL, STT_NOTYPE, 0)
        for i, n in enumerate(names):
            syms += e.sym(offs[n], text_addr + 16 * i, 16, shndx=2)
        e.section(b".symtab")["data"] = syms
        seed(name, ctrl, e)
    seed("elf32_no_names", LIMITS_NO_NAMES, base_elf(32))
    seed("elf64_shrunk", SHRUNK, base_elf())
    e = base_elf()		# a symbol table before the good one whose strings lack their NUL
    bad = e.add(b".strtab.bad", SHT_STRTAB, b"\0f0\0unterminated", align=1)
    e.sections.insert(0, dict(e.section(b".symtab"), name=b".symtab.first", link=bad + 1))
    seed("elf64_two_symtabs", LIMITS_BRIEF, e)
    # Aliases at one address: sized or not, weak and global, underscores, versions.
    e = base_elf(nfuncs=2)
    strs, offs = strtab([b"nanosleep", b"__nanosleep", b"__GI___nanosleep",
                         b"clock_gettime@@GLIBC_2.17", b"x@", b"@", b"", b"f0"])
    e.section(b".strtab")["data"] = strs
    text_addr = e.sections[e.index(b".text") - 1]["_offset"]
    syms = e.sym(0, 0, 0, STB_LOCAL, STT_NOTYPE, 0)
    for i, (n, size, bind) in enumerate([(b"__nanosleep", 16, STB_GLOBAL),
                                         (b"nanosleep", 16, STB_WEAK),
                                         (b"__GI___nanosleep", 0, STB_LOCAL),
                                         (b"clock_gettime@@GLIBC_2.17", 16, STB_GLOBAL),
                                         (b"x@", 4, STB_GLOBAL), (b"@", 4, STB_GLOBAL),
                                         (b"", 4, STB_GLOBAL), (b"f0", 0, STB_GLOBAL)]):
        syms += e.sym(offs[n], text_addr + (0 if i < 3 else 4 * i), size, bind, shndx=2)
    syms += e.sym(offs[b"f0"], 2 ** 64 - 8 if e.bits == 64 else 0xfffffff8, 32, shndx=2)
    syms += e.sym(offs[b"f0"], text_addr + 64, 2 ** 64 - 1, shndx=2)
    syms += e.sym(0xffffffff, text_addr + 80, 4, shndx=2)		# st_name out of range
    syms += e.sym(len(strs), text_addr + 84, 4, shndx=2)		# st_name at the end
    e.section(b".symtab")["data"] = syms
    seed("elf64_aliases", LIMITS_BRIEF, e)

    # Build id notes.
    def with_note(data, p_align=4, **kw):
        e = base_elf(**kw)
        e.section(b".note.gnu.build-id")["data"] = data
        e.segments[1]["align"] = p_align
        return e

    seed("note_md5", LIMITS_BRIEF, with_note(build_id_note(BUILD_ID[:16])))
    seed("note_21_bytes", LIMITS_BRIEF, with_note(build_id_note(BUILD_ID + b"\xff")))
    seed("note_64_bytes", LIMITS_BRIEF, with_note(build_id_note(bytes(range(64)))))
    seed("note_empty_id", LIMITS_BRIEF, with_note(build_id_note(b"")))
    seed("note_descsz_4g", LIMITS_BRIEF, with_note(build_id_note(descsz=0xfffffff0)))
    seed("note_namesz_4g", LIMITS_BRIEF, with_note(build_id_note(namesz=0xffffffff)))
    seed("note_after_abi_tag", LIMITS_BRIEF,
         with_note(note(b"GNU\0", NT_GNU_ABI_TAG, struct.pack("<IIII", 0, 3, 2, 0)) +
                   build_id_note()))
    seed("note_align8", LIMITS_BRIEF, with_note(build_id_note(a=8), p_align=8))
    seed("note_cut_short", LIMITS_BRIEF, with_note(build_id_note()[:30]))
    e = base_elf()		# no program headers: the build id from the section
    e.segments = []
    seed("note_section_only", NO_SYMBOLS, e)

    # Size bombs: small files whose headers claim huge sizes.
    e = base_elf()
    e.section(b".symtab")["size"] = 3 * GIB
    e.section(b".strtab")["size"] = 3 * GIB
    seed("symtab_3gib", LIMITS_BRIEF, e)
    e = base_elf(32)
    e.section(b".symtab")["size"] = 3 * GIB
    seed("elf32_symtab_3gib", LIMITS_DISKIO, e)
    e = base_elf(symtab=b".dynsym")
    e.section(b".dynsym")["size"] = 3 * GIB
    seed("dynsym_3gib", LIMITS_BRIEF, e)
    e = base_elf()
    e.section(b".strtab")["size"] = 3 * GIB
    seed("strtab_3gib", LIMITS_DISKIO, e)
    e = base_elf()
    e.segments[1]["filesz"] = GIB
    e.section(b".note.gnu.build-id")["size"] = GIB
    seed("pt_note_1gib", LIMITS_BRIEF, e)
    e = base_elf()
    e.segments[1]["filesz"] = GIB
    seed("pt_note_1gib_no_symbols", NO_SYMBOLS, e)
    e = base_elf()
    e.segments[0].update(offset=2 ** 64 - 0x1000, filesz=0x2000)
    e.segments.append(dict(type=PT_LOAD, offset=0, filesz=2 ** 63, vaddr=2 ** 64 - 0x100))
    seed("pt_load_huge", LIMITS_BRIEF, e)
    # Extended numbering: e_shnum 0 and section 0's sh_size the count, e_shstrndx
    # SHN_XINDEX and section 0's sh_link the index; e_phnum PN_XNUM and sh_info.
    e = base_elf()
    e.ehdr.update(shnum=0, shstrndx=SHN_XINDEX)
    e.null.update(size=0xffffffff, link=0xfffffffe)
    seed("shnum_extended_4g", LIMITS_BRIEF, e)
    e = base_elf()
    e.ehdr.update(shnum=0, shstrndx=SHN_XINDEX)
    e.null.update(size=len(e.sections) + 2, link=len(e.sections) + 1)
    seed("shnum_extended", LIMITS_BRIEF, e)
    e = base_elf()
    e.ehdr.update(phnum=PN_XNUM)
    e.null.update(info=0xffffffff)
    seed("phnum_xnum_4g", LIMITS_BRIEF, e)
    e = base_elf()
    e.ehdr.update(phnum=PN_XNUM)
    e.null.update(info=2)
    seed("phnum_xnum", LIMITS_BRIEF, e)
    e = base_elf()
    e.ehdr.update(phnum=PN_XNUM, shoff=0, shnum=0, shstrndx=0)
    seed("phnum_xnum_no_sections", NO_SYMBOLS, e)
    e = base_elf()
    e.ehdr.update(shnum=0xfeff)
    seed("shnum_65279", LIMITS_BRIEF, e)
    e = base_elf()
    e.ehdr.update(phnum=0xfffe)
    seed("phnum_65534", LIMITS_BRIEF, e)
    # Thousands of symbols sharing one long name: 2,000 of 16 KiB (ELF64) and
    # 4,000 of 1 KiB (ELF32); 4,000 ELF64 symbols alone are 96,000 bytes.
    seed("shared_name_16k", LIMITS_BRIEF, shared_name(64, 2000, 16 << 10))
    seed("elf32_shared_name_4000", LIMITS_BRIEF, shared_name(32, 4000, 1 << 10))

    # Links, entry sizes and offsets out of range.
    for name, link in [("sh_link_99", 99), ("sh_link_4g", 0xffffffff), ("sh_link_self", b".symtab"),
                       ("sh_link_null", 0), ("sh_link_text", b".text")]:
        e = base_elf()
        e.section(b".symtab")["link"] = link
        seed(name, LIMITS_BRIEF, e)
    e = base_elf()
    e.section(b".text")["type"] = SHT_NOBITS
    e.section(b".symtab")["link"] = b".text"
    seed("sh_link_nobits", LIMITS_BRIEF, e)
    for name, entsize, bits in [("sh_entsize_0", 0, 64), ("sh_entsize_huge", 2 ** 64 - 1, 64),
                                ("sh_entsize_1", 1, 64), ("sh_entsize_25", 25, 64),
                                ("elf32_sh_entsize_24", 24, 32),
                                ("elf32_sh_entsize_huge", 0xffffffff, 32)]:
        e = base_elf(bits)
        e.section(b".symtab")["entsize"] = entsize
        seed(name, LIMITS_BRIEF, e)
    e = base_elf()
    e.section(b".symtab")["size"] = 24 * 7 + 5		# not a whole number of entries
    seed("symtab_partial_entry", LIMITS_BRIEF, e)
    offsets = [("symtab_beyond_file", b".symtab", dict(offset=1 << 20)),
               ("symtab_offset_wraps", b".symtab", dict(offset=2 ** 64 - 0x100, size=0x200)),
               ("symtab_over_header", b".symtab", dict(offset=0)),
               ("strtab_beyond_file", b".strtab", dict(offset=0x10000)),
               ("strtab_past_end", b".strtab", dict(size=0x1000)),
               ("strtab_offset_wraps", b".strtab", dict(offset=2 ** 64 - 1, size=2)),
               ("strtab_empty", b".strtab", dict(size=0)),
               ("note_section_beyond_file", b".note.gnu.build-id", dict(offset=1 << 32))]
    for name, section, fields in offsets:
        e = base_elf()
        e.section(section).update(fields)
        seed(name, LIMITS_BRIEF, e)
    e = base_elf()	# the symbols' strings are the symbol table's own bytes
    e.build()
    symtab = e.section(b".symtab")
    e.section(b".strtab").update(offset=symtab["_offset"], size=len(symtab["data"]))
    seed("strtab_overlaps_symtab", LIMITS_BRIEF, e)
    e = base_elf()
    e.section(b".strtab")["data"] = e.section(b".strtab")["data"][:-1] + b"x"
    seed("strtab_no_nul", LIMITS_BRIEF, e)
    for name, fields in [("shoff_beyond_file", dict(shoff=1 << 20)),
                         ("shoff_wraps", dict(shoff=2 ** 64 - 64)),
                         ("phoff_beyond_file", dict(phoff=1 << 20)),
                         ("phoff_wraps", dict(phoff=2 ** 64 - 56)),
                         ("shentsize_0", dict(shentsize=0)), ("shentsize_40", dict(shentsize=40)),
                         ("phentsize_0", dict(phentsize=0)), ("phentsize_32", dict(phentsize=32)),
                         ("shdrs_over_header", dict(shoff=0)), ("phdrs_over_header", dict(phoff=0)),
                         ("shdrs_over_phdrs", dict(shoff=64))]:
        e = base_elf()
        e.ehdr.update(fields)
        seed(name, LIMITS_BRIEF, e)

    # Not an ELF file of this machine.
    for name, index, value in [("big_endian", 5, 2), ("class_3", 4, 3), ("version_0", 6, 0),
                               ("bad_magic", 1, ord("e"))]:
        e = base_elf()
        e.ident[index] = value
        seed(name, LIMITS_BRIEF, e)
    seed("elf64_header_only", LIMITS_BRIEF, base_elf().build()[:64])
    seed("ident_only", LIMITS_BRIEF, base_elf().build()[:16])
    seed("empty", LIMITS_BRIEF, b"")
    return seeds


PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#define F(n) __attribute__((noinline)) int fn_##n(int x) { return x * n + (x >> 3); }
F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16)
__attribute__((noinline, weak)) int weak_fn(int x) { return x + 1; }
__attribute__((noinline)) static int local_fn(int x) { return fn_1(x) ^ fn_16(x); }
int (*const table[])(int) = { fn_2, fn_3, fn_4, fn_5, fn_6, fn_7, fn_8, fn_9, fn_10, fn_11,
			      fn_12, fn_13, fn_14, fn_15, weak_fn, local_fn };
int main(int argc, char **argv)
{
	printf("%d\n", table[argc % 16](argc > 1 ? atoi(argv[1]) : 0));
	return 0;
}
"""


def real_files():
    seeds = {}
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        print(f"make_elf_seeds: no {cc}: real_* seeds not made", file=sys.stderr)
        return seeds
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "prog.c")
        with open(src, "w") as f:
            f.write(PROGRAM)

        def build(name, *args, post=None):
            out = os.path.join(tmp, name)
            # No temporary path in the debug information: the same seeds each time.
            subprocess.run([cc, "-Os", "-Wl,--build-id", f"-ffile-prefix-map={tmp}=.", *args,
                            src, "-o", out], check=True)
            if post:
                post(out)
            with open(out, "rb") as f:
                return f.read()

        def keep_debug(path):
            subprocess.run(["objcopy", "--only-keep-debug", path, path + ".debug"], check=True)
            os.replace(path + ".debug", path)

        pie = build("pie")
        seeds["real_pie"] = bytes([LIMITS_BRIEF]) + pie
        seeds["real_pie_tight"] = bytes([LIMITS_TIGHT]) + pie
        seeds["real_pie_stripped"] = bytes([LIMITS_BRIEF]) + build("stripped", "-s")
        seeds["real_rdynamic_stripped"] = bytes([LIMITS_BRIEF]) + build("rdynamic", "-s",
                                                                         "-rdynamic")
        seeds["real_nopie"] = bytes([LIMITS_DISKIO]) + build("nopie", "-fno-pie", "-no-pie")
        seeds["real_shared"] = bytes([NO_SYMBOLS]) + build("shared", "-shared", "-fPIC", "-s")
        seeds["real_debug"] = bytes([SYMTAB_ONLY]) + build("debug", "-g", post=keep_debug)
    return seeds


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "elf")
    seeds = {**real_files(), **hand_made()}
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds.items()):
        if len(data) > MAX_SEED:
            sys.exit(f"make_elf_seeds: {name} is {len(data)} bytes, over {MAX_SEED}")
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"make_elf_seeds: {len(seeds)} seeds in {out}")


if __name__ == "__main__":
    main()
