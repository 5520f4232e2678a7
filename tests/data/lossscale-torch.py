# Run on a CUDA machine with PyTorch: OUT=DIR python3 lossscale-torch.py writes DIR/g.bin,
# DIR/u.bin and DIR/found.txt (raw little-endian FP32 patterns); lossscale-torch-h200.txt keeps
# every 25th value of them (and values 1..3) as hex text.  Also prints _amp_update_scale_ traces.
import os,struct,torch as T
o=os.environ["OUT"];d="cuda"
fb=lambda x:"%08X"%struct.unpack("<I",struct.pack("<f",float(x)))[0]
def tr(i,gf,bf,n_,ov,n,dv):
 s=T.full((),i,dtype=T.float32,device=dv);t=T.zeros((),dtype=T.int32,device=dv);r=[]
 for k in range(1,n+1):
  T._amp_update_scale_(s,t,T.full((),float(k in ov),device=dv),gf,bf,n_);r.append("%s/%d"%(fb(s.item()),t.item()))
 return " ".join(r)
print(T.__version__)
for dv in[d,"cpu"]:
 print(dv,tr(1024.,2.,.5,3,{4},5,dv),"|",tr(1.,2.,.1,2000,{1,2},2,dv),"|",tr(3.4028234663852886e38,2.,.5,1,{3},3,dv),"|",tr(3.4028234663852886e38,1.0000001,.5,1,set(),1,dv),"|",tr(3.,1.1,.5,1,set(),3,dv))
p=T.nn.Parameter(T.ones(4,device=d));op=T.optim.SGD([p],lr=0.)
sc=T.amp.GradScaler(d,init_scale=1024.,growth_interval=3);q=[]
for k in range(1,6):
 op.zero_grad();sc.scale((p*(float("inf") if k==4 else 1.)).sum()).backward();sc.step(op);sc.update();q.append(sc.get_scale())
print("gs",q)
T.manual_seed(0)
g=T.cat([T.randn(2000)*2.**e for e in[-140,-130,-40,-30,-26,-24,-20,-14,-8,0,4,10,16]]).to(d)
g[0]=0.;g[1]=float("inf");g[2]=float("nan");g[3]=1e-8
def raw(t):
 v=t.cpu().contiguous().view(T.int32).tolist();return struct.pack("<%di"%len(v),*v)
open(o+"/g.bin","wb").write(raw(g))
f=open(o+"/u.bin","wb");ft=open(o+"/found.txt","w")
for s in[1024.,65536.,3.,.125,1e-3,2.**24]:
 S=T.full((),s,dtype=T.float32,device=d);h=(g*S).half().float();fo=T.zeros((),device=d);iv=S.double().reciprocal().float()
 T._amp_foreach_non_finite_check_and_unscale_([h],fo,iv);f.write(raw(h));ft.write("%s %s %d\n"%(fb(S.item()),fb(iv.item()),fo.item()))
f.close();ft.close();print("done",g.numel())
