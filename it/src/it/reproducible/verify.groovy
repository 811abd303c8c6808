import java.security.MessageDigest

def digests(File root) {
  def out = new TreeMap()
  root.eachFileRecurse(groovy.io.FileType.FILES) { f ->
    def rel = root.toPath().relativize(f.toPath()).toString()
    out[rel] = MessageDigest.getInstance('SHA-256').digest(f.bytes).encodeHex().toString()
  }
  return out
}
def a = digests(new File(basedir, 'target/a'))
def b = digests(new File(basedir, 'target/b'))
assert a.size() > 8
assert a == b
