// Hover details: any element with data-tip shows it in a floating box.
(function(){
  var tip=document.getElementById('tip');
  document.addEventListener('mousemove',function(e){
    var t=e.target.closest?e.target.closest('[data-tip]'):null;
    if(!t){tip.style.display='none';return;}
    tip.textContent=t.getAttribute('data-tip');
    tip.style.display='block';
    var x=e.clientX+14,y=e.clientY+14;
    if(x+tip.offsetWidth>window.innerWidth)x=e.clientX-tip.offsetWidth-8;
    if(y+tip.offsetHeight>window.innerHeight)y=e.clientY-tip.offsetHeight-8;
    tip.style.left=x+'px';tip.style.top=y+'px';
  });
  // Zoom: the wheel over a zoomable chart narrows or widens its time axis;
  // a double click resets it.
  document.querySelectorAll('svg.zoomable').forEach(function(svg){
    var vb=svg.viewBox.baseVal, full={x:vb.x,w:vb.width}, left=+svg.getAttribute('data-plot-left')||0;
    svg.addEventListener('wheel',function(e){
      e.preventDefault();
      var r=svg.getBoundingClientRect(), f=(e.clientX-r.left)/r.width;
      var px=vb.x+f*vb.width, k=e.deltaY<0?0.8:1.25;
      var w=Math.min(full.w,Math.max(full.w/200,vb.width*k));
      vb.x=Math.max(full.x,Math.min(full.x+full.w-w,px-f*w));vb.width=w;
    },{passive:false});
    svg.addEventListener('dblclick',function(){vb.x=full.x;vb.width=full.w;});
  });
})();
// Graph views: click or Enter on a node shows its details; the search box
// marks the nodes whose name contains the text and centres the first; the
// wheel and the buttons zoom, dragging pans, Fit shows the whole graph.
(function(){
  document.querySelectorAll('[data-graph]').forEach(function(fig){
    var svg=fig.querySelector('svg.gsvg'); if(!svg)return;
    var vb=svg.viewBox.baseVal, W=+svg.getAttribute('data-w'), H=+svg.getAttribute('data-h');
    var det=fig.querySelector('.gdetail'), nodes=fig.querySelectorAll('.gnode');
    function fit(){vb.x=0;vb.y=0;vb.width=W;vb.height=H;}
    function zoom(k,cx,cy){
      var w=Math.max(W/60,Math.min(W*2,vb.width*k)), s=w/vb.width, h=vb.height*s;
      if(cx===undefined){cx=vb.x+vb.width/2;cy=vb.y+vb.height/2;}
      vb.x=cx-(cx-vb.x)*s;vb.y=cy-(cy-vb.y)*s;vb.width=w;vb.height=h;
    }
    function toSVG(e){var r=svg.getBoundingClientRect();return [vb.x+(e.clientX-r.left)*vb.width/r.width, vb.y+(e.clientY-r.top)*vb.height/r.height];}
    fig.querySelectorAll('[data-gzoom]').forEach(function(b){
      b.addEventListener('click',function(){var z=b.getAttribute('data-gzoom'); if(z==='fit')fit(); else zoom(z==='in'?0.75:1.33);});
    });
    svg.addEventListener('wheel',function(e){e.preventDefault();var p=toSVG(e);zoom(e.deltaY<0?0.85:1.18,p[0],p[1]);},{passive:false});
    var drag=null;
    svg.addEventListener('mousedown',function(e){drag={x:e.clientX,y:e.clientY,vx:vb.x,vy:vb.y};});
    window.addEventListener('mouseup',function(){drag=null;});
    svg.addEventListener('mousemove',function(e){
      if(!drag||!(e.buttons&1))return;
      var r=svg.getBoundingClientRect();
      vb.x=drag.vx-(e.clientX-drag.x)*vb.width/r.width;vb.y=drag.vy-(e.clientY-drag.y)*vb.height/r.height;
    });
    function centre(n){
      var m=n.transform.baseVal.consolidate(), bb=n.getBBox(); if(!m)return;
      vb.x=m.matrix.e+bb.width/2-vb.width/2;vb.y=m.matrix.f+bb.height/2-vb.height/2;
    }
    function select(n){
      nodes.forEach(function(o){o.classList.remove('gsel');});
      n.classList.add('gsel');
      var rows=[]; try{rows=JSON.parse(n.getAttribute('data-detail'))||[];}catch(e){}
      det.textContent='';
      var t=document.createElement('table');
      rows.forEach(function(kv){
        var tr=document.createElement('tr'),th=document.createElement('th'),td=document.createElement('td');
        th.textContent=kv.Key;td.textContent=kv.Value;tr.appendChild(th);tr.appendChild(td);t.appendChild(tr);
      });
      if(!rows.length){det.textContent=n.getAttribute('data-name');}else{det.appendChild(t);}
    }
    nodes.forEach(function(n){
      n.addEventListener('click',function(){select(n);});
      n.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();select(n);}});
    });
    var search=fig.querySelector('.gsearch');
    if(search)search.addEventListener('input',function(){
      var q=search.value.trim().toLowerCase(), first=null;
      nodes.forEach(function(n){
        var hit=q!==''&&n.getAttribute('data-name').toLowerCase().indexOf(q)>=0;
        n.classList.toggle('ghit',hit); if(hit&&!first)first=n;
      });
      if(first){centre(first);select(first);}
    });
  });
})();
